import PropertyBased
import Testing
@testable import RulesCases

@Suite("Case-file readers: properties")
struct ReaderPropertyTests {
    /// Builds a document tree from fuzz bytes (bounded depth and size).
    struct TreeBuilder {
        var bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func next() -> UInt8 {
            defer { index += 1 }
            return index < bytes.count ? bytes[index] : 0
        }

        mutating func tree(depth: Int) -> DocumentTree {
            switch next() % (depth > 0 ? 8 : 6) {
            case 0: return .null
            case 1: return .bool(next() % 2 == 0)
            case 2: return .int(Int64(Int8(bitPattern: next())) * Int64(next()) * 1_000_003)
            case 3: return .float(Double(Int8(bitPattern: next())) / 8)
            case 4, 5:
                let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "é", "😀", "\u{1}", ":", "{"]
                return .string(String((0..<Int(next() % 6)).map { _ in alphabet[Int(next()) % alphabet.count] }))
            case 6: return .list((0..<Int(next() % 4)).map { _ in tree(depth: depth - 1) })
            default:
                var entries: [(key: String, value: DocumentTree)] = []
                for index in 0..<Int(next() % 4) { entries.append(("k\(index)\(next() % 3)", tree(depth: depth - 1))) }
                var seen = Set<String>()
                return .map(entries.filter { seen.insert($0.key).inserted })
            }
        }
    }

    /// Prints a tree as JSON, always with a fraction for floats.
    static func json(_ tree: DocumentTree) -> String {
        switch tree {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .float(let value): value == value.rounded() ? String(integralFloat: value) : String(value)
        case .string(let value): jsonEscaped(value)
        case .list(let items): "[" + items.map(json).joined(separator: ", ") + "]"
        case .map(let entries): "{" + entries.map { jsonEscaped($0.key) + ": " + json($0.value) }.joined(separator: ", ") + "}"
        }
    }

    static func jsonEscaped(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test("JSON: read(print(tree)) == tree, keeping ints and floats apart")
    func jsonRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...200)) { bytes in
            var builder = TreeBuilder(bytes)
            let tree = builder.tree(depth: 4)
            let text = Self.json(tree)
            #expect((try? JSONReader.read(text)) == tree, "json: \(text)")
        }
    }

    @Test("JSON: the same tree also reads as YAML (YAML 1.2 is a superset of JSON)")
    func jsonAsYAML() async {
        await propertyCheck(count: 200, input: Gen.uint8().array(of: 0...120)) { bytes in
            var builder = TreeBuilder(bytes)
            let tree = builder.tree(depth: 3)
            let text = Self.json(tree)
            #expect((try? YAMLReader.read(text)) == tree, "json: \(text)")
        }
    }

    @Test("arbitrary bytes: each reader returns a tree or a located error, and the loader reports exactly that")
    func arbitraryBytes() async {
        let vocabulary = ["{", "}", "[", "]", ",", ":", "\"", "\\", "u", "d83d", "0", "-", ".", "e", "1",
                          "true", "null", "\"__type__\"", "\"timestamp\"", "\"cases\"", "\"rules\"", " ", "\n", "é", "- ", "&a", "*a", "!!"]
        var read = 0, refused = 0
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...160)) { bytes in
            let raw = String(decoding: bytes, as: UTF8.self)
            let soup = bytes.map { vocabulary[Int($0) % vocabulary.count] }.joined()
            for text in [raw, soup] {
                for (path, reader) in [("p.json", JSONReader.read), ("p.yaml", YAMLReader.read)] as [(String, (String) throws(DocumentSyntaxError) -> DocumentTree)] {
                    let outcome = Result { () throws(DocumentSyntaxError) in try reader(text) }
                    let loaded = Result { () throws(CaseFileError) in try CaseFileLoader.decode(text, path: path) }
                    switch outcome {
                    case .success:
                        read += 1
                        // The text was read: any problem is the decoder's, named by the file alone.
                        if case .failure(let error) = loaded {
                            #expect(error.file == path, "\(path) \(error) for \(text.debugDescription)")
                        }
                    case .failure(let error):
                        refused += 1
                        // A syntax error is located inside the text, and the loader reports it at that place.
                        let breaks = text.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count
                        #expect((1...breaks + 2).contains(error.line) && (1...text.count + 1).contains(error.column),
                                "\(path): \(error.line):\(error.column) outside \(text.debugDescription)")
                        #expect(!error.message.isEmpty)
                        guard case .failure(let loaderError) = loaded else {
                            Issue.record("\(path): the loader accepted text its reader refuses: \(text.debugDescription)")
                            continue
                        }
                        #expect(loaderError == CaseFileError(file: "\(path):\(error.line):\(error.column)", message: error.message))
                    }
                }
            }
        }
        // Both outcomes were really exercised (1,000 texts a reader, two readers).
        #expect(read + refused == 2_000)
        #expect(read >= 100 && refused >= 500, "read \(read), refused \(refused)")
    }
}

private extension String {
    /// A float with an integral value printed with one fraction digit (`2.0`, `-3.0`).
    init(integralFloat value: Double) {
        self = String(Int64(value)) + ".0"
    }
}
