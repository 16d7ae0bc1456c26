// The `rules` command plugin: `swift package rules test|lint|verify|diff|agree ARGS…` builds this
// package's `validate` (debug, in the package's own build folder) and runs `validate rules ARGS…`
// from the package's folder, exiting with its status.
import Foundation
import PackagePlugin

@main
struct RulesCommandPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let build = try packageManager.build(.product("validate"), parameters: .init(configuration: .debug, logging: .concise))
        guard build.succeeded, let validate = build.builtArtifacts.first(where: { $0.kind == .executable }) else {
            Diagnostics.error("`validate` did not build:\n\(build.logText)")
            exit(2)
        }
        let process = Process()
        process.executableURL = validate.url
        process.arguments = ["rules"] + arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        // The status of `validate rules …`; a signal as a shell reports it.
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        if status != 0 { exit(status) }
    }
}
