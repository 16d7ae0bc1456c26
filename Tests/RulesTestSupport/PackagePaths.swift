import Foundation

/// The package root, found by walking up from this file to `Package.swift`.
public let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        url.deleteLastPathComponent()
    }
    return url
}()

/// The built `validate` binary: next to the test bundle, else in `.build/debug`.
public let validateBinary: URL = {
    let besideBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("validate")
    if FileManager.default.isExecutableFile(atPath: besideBundle.path) { return besideBundle }
    return packageRoot.appendingPathComponent(".build/debug/validate")
}()
