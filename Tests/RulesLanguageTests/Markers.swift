/// Source text with position markers (`1️⃣`, `2️⃣`, …) removed, and the UTF-8 offset of each.
struct MarkedSource {
    let text: String
    let offsets: [String: Int]

    static let markers = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣"]

    init(_ marked: String) {
        var text = ""
        var offsets: [String: Int] = [:]
        var rest = Substring(marked)
        outer: while !rest.isEmpty {
            for marker in MarkedSource.markers where rest.hasPrefix(marker) {
                offsets[marker] = text.utf8.count
                rest = rest.dropFirst(marker.count)
                continue outer
            }
            text.append(rest.removeFirst())
        }
        self.text = text
        self.offsets = offsets
    }
}
