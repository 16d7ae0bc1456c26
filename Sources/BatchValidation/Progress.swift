#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on stderr: percentage, records per second and time left.
///
/// Shown only when the caller allows it (stderr is a TTY, the input a regular file, no
/// `--quiet`); redrawn at most ten times a second and erased when done.
package final class ProgressBar {
    private let sink: OutputSink
    private let started = ProgressBar.now()
    private var lastDraw = 0.0
    private var drawn = false

    package init(sink: OutputSink) { self.sink = sink }

    /// Redraws if enough time has passed since the last draw.
    package func update(name: String, bytesDone: Int, bytesTotal: Int, records: Int) {
        let now = ProgressBar.now()
        guard now - lastDraw >= 0.1, bytesTotal > 0 else { return }
        lastDraw = now
        let fraction = min(1, Double(bytesDone) / Double(bytesTotal))
        let elapsed = max(now - started, 0.001)
        let rate = Double(records) / elapsed
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        let percent = Int(fraction * 100)
        sink.write("\r\u{1B}[2K\(name) [\(bar)] \(percent)% \(ProgressBar.compact(rate)) rec/s ETA \(ProgressBar.duration(eta))")
        drawn = true
    }

    /// Erases the bar.
    package func finish() {
        if drawn { sink.write("\r\u{1B}[2K") }
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func compact(_ value: Double) -> String {
        if value >= 1e6 { return "\(Int(value / 1e5) / 10).\(Int(value / 1e5) % 10)M" }
        if value >= 1e3 { return "\(Int(value / 1e3))k" }
        return "\(Int(value))"
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        return total >= 60 ? "\(total / 60)m\(total % 60)s" : "\(total)s"
    }
}
