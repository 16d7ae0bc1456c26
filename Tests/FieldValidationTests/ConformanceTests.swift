@testable import FieldValidation
import Foundation
import RulesTestSupport
import Testing

/// Runs `corpus/conformance/*.json`: every case must produce exactly its expected codes (in
/// order) and, where given, the first violation's exact message. Cases are named
/// `<validator>/<section>/<case>`; password inputs are never printed.
@Suite struct ConformanceTests {
    // MARK: - File format

    struct CorpusFile: Decodable {
        var validator: String
        var description: String?
        var options: Options?
        /// `section/case` → reason, for known gaps.
        var skip: [String: String]?
        var sections: [Section]
    }

    struct Section: Decodable {
        var name: String
        var cases: [Case]
    }

    struct Case: Decodable {
        var name: String
        var input: String
        var codes: [String]
        var message: String?
        var context: Context?
        var options: Options?
    }

    struct Options: Decodable, Hashable {
        var appName: String?
        var asciiOnly: Bool?
        var minimumLength: Int?
    }

    struct Context: Decodable {
        var username: String?
        var email: String?
        var appName: String?
    }

    /// One runnable case; its description is its name only, so no input is ever printed.
    struct Named: CustomTestStringConvertible, Sendable {
        let id: String
        let validator: String
        let input: String
        let codes: [String]
        let message: String?
        let context: PasswordContext
        let options: Options
        let skipReason: String?
        var testDescription: String { id }
    }

    static let files = ["display-name", "email", "password"]

    static let cases: [Named] = {
        var all: [Named] = []
        for file in files {
            let url = packageRoot.appendingPathComponent("corpus/conformance/\(file).json")
            guard let data = try? Data(contentsOf: url),
                  let corpus = try? JSONDecoder().decode(CorpusFile.self, from: data) else {
                all.append(Named(id: "\(file)/unreadable", validator: "unreadable", input: "", codes: [], message: nil,
                                 context: .none, options: Options(), skipReason: nil))
                continue
            }
            for section in corpus.sections {
                for item in section.cases {
                    var options = corpus.options ?? Options()
                    if let own = item.options {
                        options.asciiOnly = own.asciiOnly ?? options.asciiOnly
                        options.minimumLength = own.minimumLength ?? options.minimumLength
                        options.appName = own.appName ?? options.appName
                    }
                    let key = "\(section.name)/\(item.name)"
                    all.append(Named(
                        id: "\(corpus.validator)/\(key)", validator: corpus.validator, input: item.input,
                        codes: item.codes, message: item.message,
                        context: PasswordContext(username: item.context?.username, email: item.context?.email,
                                                 appName: item.context?.appName),
                        options: options, skipReason: corpus.skip?[key]))
                }
            }
        }
        return all
    }()

    // MARK: - Running

    @Test func everyCorpusHasAtLeast150Cases() {
        for file in Self.files {
            let count = Self.cases.filter { $0.id.hasPrefix(file + "/") }.count
            #expect(count >= 150, "\(file): \(count) cases")
        }
    }

    @Test(arguments: cases)
    func conformance(_ item: Named) throws {
        try #require(item.validator != "unreadable", "\(item.id): corpus file missing or malformed")
        if let reason = item.skipReason {
            // Known gap, listed in the corpus file's `skip` with its reason.
            _ = reason
            return
        }
        let result = try Validators.shared.validate(item)
        #expect(result.codes == item.codes, "\(item.id)")
        if let message = item.message {
            #expect(result.violations.first?.message == message, "\(item.id)")
        }
    }

    /// Validators built once per option set.
    final class Validators: @unchecked Sendable {
        static let shared = Validators()
        private let lock = NSLock()
        private var displayNames: [Options: DisplayNameValidator] = [:]
        private var emails: [Bool: EmailValidator] = [:]
        private var passwords: [Options: PasswordValidator] = [:]

        func validate(_ item: Named) throws -> ValidationResult {
            lock.lock()
            defer { lock.unlock() }
            switch item.validator {
            case "display-name":
                let validator = try displayNames[item.options] ?? DisplayNameValidator(appName: item.options.appName)
                displayNames[item.options] = validator
                return validator.validate(item.input)
            case "email":
                let ascii = item.options.asciiOnly ?? false
                let validator = try emails[ascii] ?? EmailValidator(asciiOnly: ascii)
                emails[ascii] = validator
                return validator.validate(item.input)
            case "password":
                let validator = try passwords[item.options]
                    ?? PasswordValidator(minimumLength: item.options.minimumLength, appName: item.options.appName)
                passwords[item.options] = validator
                return validator.validate(item.input, context: item.context)
            default:
                throw CocoaError(.featureUnsupported)
            }
        }
    }
}
