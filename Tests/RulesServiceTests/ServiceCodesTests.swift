import Foundation
import RulesTestSupport
@testable import RulesService
import Testing

/// `ServiceCodes.all` against the catalogue's source and docs/SERVE.md (the source-level checks
/// of every module's codes are RulesKitTests' CodeCatalogueTests).
@Suite struct ServiceCodesTests {
    @Test func allListsEveryEntryOnceWithASummaryAndAHelp() throws {
        let ids = ServiceCodes.all.map(\.id)
        #expect(Set(ids).count == ids.count, "an id is listed twice in ServiceCodes.all")
        let source = try String(contentsOf: packageRoot.appendingPathComponent("Sources/RulesService/ServiceCodes.swift"), encoding: .utf8)
        let defined = Set(source.matches(of: #/id: "(API[0-9]{4})"/#).map { String($0.1) })
        #expect(defined.count > 20)
        #expect(Set(ids) == defined, "ServiceCodes.all misses \(defined.subtracting(ids).sorted())")
        for code in ServiceCodes.all {
            #expect(!code.summary.isEmpty && !code.help.isEmpty && !code.summary.contains("\n"), "\(code.id) needs a one-line summary and a help")
        }
    }

    @Test func errorsCarryCatalogueCodes() {
        #expect(ServiceError.malformedJSON().code == ServiceCodes.malformedJSON.id)
        #expect(ServiceError.internalFailure().code == "API1901")
        #expect(ServiceError.refused([]).code == "AV1003")
        #expect(ServiceError.refused([]).status == .conflict)
    }
}
