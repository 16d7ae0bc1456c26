// JUnit: test results as JUnit XML, the report CI systems read for test results.

/// Test results as a JUnit XML document: `<testsuites>`, one `<testsuite>` per file, one
/// `<testcase>` per case.
///
/// A failed case holds a `<failure>` whose `message` is its one-line summary and whose text is
/// the explanation; a file that could not be used is a suite with one `<testcase>` (named after
/// the file) holding an `<error>` with the diagnostics.
public struct JUnitReport: Sendable, Hashable {
    /// One `<testcase>`.
    public struct TestCase: Sendable, Hashable {
        /// The case's name.
        public var name: String
        /// The failure's one-line summary and explanation; nil when the case passed.
        public var failure: (message: String, text: String)?

        /// Creates a case.
        ///
        /// - Parameters:
        ///   - name: The case's name.
        ///   - failure: Its failure (summary and explanation), nil when it passed.
        public init(name: String, failure: (message: String, text: String)? = nil) {
            self.name = name
            self.failure = failure
        }

        public static func == (lhs: TestCase, rhs: TestCase) -> Bool {
            lhs.name == rhs.name && lhs.failure?.message == rhs.failure?.message && lhs.failure?.text == rhs.failure?.text
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(failure?.message)
            hasher.combine(failure?.text)
        }
    }

    /// One `<testsuite>`: a file's cases, or why the file could not be used.
    public struct TestSuite: Sendable, Hashable {
        /// The file's path.
        public var name: String
        /// Its cases, in order (empty when the file could not be used).
        public var cases: [TestCase]
        /// Why the file could not be used; nil when its cases ran.
        public var error: String?

        /// Creates a suite.
        ///
        /// - Parameters:
        ///   - name: The file's path.
        ///   - cases: Its cases.
        ///   - error: Why it could not be used.
        public init(name: String, cases: [TestCase], error: String? = nil) {
            self.name = name
            self.cases = cases
            self.error = error
        }

        /// `<testcase>` elements in the suite.
        var testCount: Int { error == nil ? cases.count : 1 }
        var failureCount: Int { cases.filter { $0.failure != nil }.count }
        var errorCount: Int { error == nil ? 0 : 1 }
    }

    /// The `<testsuites>` element's name.
    public var name: String
    /// The suites, in order.
    public var suites: [TestSuite]

    /// Creates a report.
    public init(name: String, suites: [TestSuite]) {
        self.name = name
        self.suites = suites
    }

    /// The document: an XML declaration, then `<testsuites>` with `tests`, `failures` and
    /// `errors` counts on it and on each suite; a final line break.
    public func xml() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let tests = suites.reduce(0) { $0 + $1.testCount }
        let failures = suites.reduce(0) { $0 + $1.failureCount }
        let errors = suites.reduce(0) { $0 + $1.errorCount }
        out += "<testsuites name=\(attribute(name)) tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
        for suite in suites {
            out += "  <testsuite name=\(attribute(suite.name)) tests=\"\(suite.testCount)\" failures=\"\(suite.failureCount)\" "
                + "errors=\"\(suite.errorCount)\">\n"
            if let error = suite.error {
                let summary = error.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? error
                out += "    <testcase name=\(attribute(suite.name)) classname=\(attribute(suite.name))>\n"
                out += "      <error message=\(attribute(summary))>\(text(error))</error>\n"
                out += "    </testcase>\n"
            }
            for testCase in suite.cases {
                let open = "    <testcase name=\(attribute(testCase.name)) classname=\(attribute(suite.name))"
                if let failure = testCase.failure {
                    out += open + ">\n      <failure message=\(attribute(failure.message))>\(text(failure.text))</failure>\n    </testcase>\n"
                } else {
                    out += open + "/>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }
}

// MARK: - XML escaping

/// XML 1.0 character data: `&`, `<` and `>` escaped; characters XML 1.0 cannot carry (control
/// characters other than tab, line feed and carriage return; U+FFFE, U+FFFF) become U+FFFD.
func text(_ value: String) -> String {
    escapeXML(value, inAttribute: false)
}

/// A quoted XML attribute value: as ``text(_:)`` plus `"` escaped and tab, line feed and carriage
/// return as character references (so a parser keeps them).
func attribute(_ value: String) -> String {
    "\"" + escapeXML(value, inAttribute: true) + "\""
}

private func escapeXML(_ value: String, inAttribute: Bool) -> String {
    var out = ""
    out.reserveCapacity(value.utf8.count)
    for scalar in value.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"" where inAttribute: out += "&quot;"
        case "\t" where inAttribute: out += "&#9;"
        case "\n" where inAttribute: out += "&#10;"
        case "\r": out += "&#13;"
        case "\t", "\n": out.unicodeScalars.append(scalar)
        case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
            out += "\u{FFFD}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}
