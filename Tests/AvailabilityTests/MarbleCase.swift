import ClaimStoreTesting
import RulesTestSupport
import Foundation
import Testing

/// One case of corpus/availability/checker.marbles (the file's header explains the notation).
struct MarbleCase: Sendable, CustomTestStringConvertible {
    var file: String
    var name: String
    var typing: [(tick: Int, text: String)] = []
    var ticks = 0
    var taken: Set<String> = []
    var delays: [String: Int] = [:]
    var failures: [String: Int] = [:]
    var config: [String: Int] = [:]
    var expect: [String] = []
    var queries: [String] = []
    var suggestionLookups = 0
    var runMilliseconds: Int?

    var testDescription: String { "\(file)/\(name)" }

    /// Loads every case of every `.marbles` file under corpus/availability.
    static func load() throws -> [MarbleCase] {
        let directory = packageRoot.appendingPathComponent("corpus/availability")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".marbles") }.sorted()
        return try files.flatMap { file in
            try parse(String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8), file: file)
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String, file: String) throws -> [MarbleCase] {
        var cases: [MarbleCase] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw ParseError(description: "\(file):\(index + 1): expected `field: value`")
            }
            let field = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if field == "case" {
                cases.append(MarbleCase(file: file, name: value))
                continue
            }
            guard !cases.isEmpty else { throw ParseError(description: "\(file):\(index + 1): `\(field)` before any `case:`") }
            try cases[cases.count - 1].set(field, value, at: "\(file):\(index + 1)")
        }
        return cases
    }

    private mutating func set(_ field: String, _ value: String, at location: String) throws {
        let words = value.split(separator: " ").map(String.init)
        let list = value.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        switch field {
        case "typing":
            ticks = words.count
            typing = words.enumerated().compactMap { $1 == "." ? nil : ($0, $1 == "~" ? "" : $1) }
        case "taken": taken = Set(words)
        case "delay": delays = try Self.pairs(words, at: location)
        case "fail": failures = try Self.pairs(words, at: location)
        case "config": config = try Self.pairs(words, at: location)
        case "expect": expect = list
        case "queries": queries = value == "none" ? [] : list
        case "suggest": suggestionLookups = Int(value) ?? -1
        case "run": runMilliseconds = Int(value)
        default: throw ParseError(description: "\(location): unknown field `\(field)`")
        }
    }

    private static func pairs(_ words: [String], at location: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for word in words {
            let parts = word.split(separator: "=")
            guard parts.count == 2, let number = Int(parts[1]) else {
                throw ParseError(description: "\(location): expected name=number, got `\(word)`")
            }
            result[String(parts[0])] = number
        }
        return result
    }
}
