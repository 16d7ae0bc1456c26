import RulesCases
import Testing

/// YAML syntax errors are located as every other diagnostic is: a new line at LF only, columns in
/// characters. libyaml itself also breaks lines at NEL, LS and PS and counts columns in Unicode
/// scalars (both found by FuzzRulesRequestFile and FuzzRulesCaseFile, corpus/regressions/).
struct YAMLLocationTests {
    @Test("line breaks that are not LF do not start a line", arguments: ["\u{85}", "\u{2028}", "\u{2029}"])
    func onlyLineFeedsStartALine(separator: String) throws {
        let text = "a: 1" + separator + "b: 1" + separator + "c: 'open"
        let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read(text) }
        #expect(error.line == 1, "\(error)")
        #expect((1...text.count + 1).contains(error.column), "\(error)")
    }

    @Test("a combining mark is one character with its base")
    func columnsCountCharacters() throws {
        let text = "a: '\u{FFFD}\u{615}x"
        let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read(text) }
        #expect(error.line == 1, "\(error)")
        #expect(error.column <= text.count + 1, "\(error) in \(text.count) characters")
    }

    @Test("lines after LF and CRLF are counted as before")
    func lineFeeds() throws {
        for text in ["a: 1\nb: 1\nc: 'open", "a: 1\r\nb: 1\r\nc: 'open"] {
            let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read(text) }
            #expect(error.line == 3, "\(error)")
        }
    }

    /// Yams names the first duplicate in an order that is arbitrary when keys sort alike (a map
    /// as a key): the error must not depend on it, so it is the same on every read.
    @Test("a duplicated key that is a map is reported the same way every time")
    func duplicatedMapKeys() throws {
        let text = "x: 1\n{k: v}: 1\nb: 2\n{k: v}: 3\nb: 4\n"
        var seen = Set<String>()
        for _ in 0..<20 {
            let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read(text) }
            seen.insert("\(error.line):\(error.column) \(error.message)")
        }
        #expect(seen == ["1:1 duplicate key (a list or map), `b`"])
    }

    @Test("a duplicated string key is located at its first occurrence")
    func duplicatedStringKey() throws {
        let error = try #require(throws: DocumentSyntaxError.self) { try YAMLReader.read("a: 1\nb: 2\nb: 3\n") }
        #expect((error.line, error.column) == (2, 1), "\(error)")
        #expect(error.message == "duplicate key `b`")
    }
}
