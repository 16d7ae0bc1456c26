import RulesCases
import Testing

@Suite("Paths named inside case and property files")
struct RelativePathTests {
    @Test("resolved against the naming file's directory, with . and .. folded away", arguments: [
        ("firestore.rules", "rules/tests/app.cases.json", "rules/tests/firestore.rules"),
        ("../firestore.rules", "rules/tests/app.cases.json", "rules/firestore.rules"),
        ("./../../x.rules", "rules/tests/app.cases.json", "x.rules"),
        ("../../../x.rules", "rules/tests/app.cases.json", "../x.rules"),
        ("x.rules", "app.cases.json", "x.rules"),
        (".", "app.cases.json", "."),
        ("/abs/x.rules", "rules/tests/app.cases.json", "/abs/x.rules"),
        ("../x.rules", "/srv/rules/tests/a.json", "/srv/rules/x.rules"),
        ("../../../../x.rules", "/srv/a.json", "/x.rules"),
    ])
    func resolves(path: String, file: String, expected: String) {
        #expect(resolvePath(path, relativeTo: file) == expected)
    }
}
