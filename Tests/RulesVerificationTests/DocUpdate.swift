/// An update rule on `/docs/{docId}` with one condition, and properties of its updates: the
/// fixture of the map-diff and set-equality suites.
enum DocUpdate {
    static func rules(_ condition: String) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /docs/{docId} {
              allow update: if \(condition);
            }
          }
        }
        """
    }

    /// A property of kind `kind` on every update, with `condition` if given.
    static func property(_ kind: String, _ condition: String?) -> String {
        let condition = condition.map { ", \"condition\": \"\($0)\"" } ?? ""
        return "{\"name\": \"p\", \"path\": \"/databases/{database}/documents/docs/{docId}\", \"methods\": [\"update\"], \"kind\": \"\(kind)\"\(condition)}"
    }

    /// The diff of the written document against the stored one.
    static let diff = "request.resource.data.diff(resource.data)"
}
