import Availability
import ClaimStoreTesting
import Foundation
import Testing

/// Group commit: claims that arrive while a batch is written go together in the next one, each
/// answered with its own record's outcome. Driven step by step (a gate holds the first write),
/// never by timing.
struct ClaimCoalescerTests {
    /// Holds the first write until released; records the size of every write.
    final class Writer: @unchecked Sendable {
        let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
        private let lock = NSLock()
        private var gate: CheckedContinuation<Void, Never>?
        private var held = false
        private(set) var sizes: [Int] = []
        var fault: ((Int) -> BatchOutcome.Fault?)?

        var isHolding: Bool { lock.withLock { gate != nil } }

        func write(_ batch: [NameRequest]) async -> BatchOutcome {
            let first = lock.withLock { () -> Bool in
                sizes.append(batch.count)
                defer { held = true }
                return !held
            }
            if first { await withCheckedContinuation { continuation in lock.withLock { gate = continuation } } }
            if let fault = fault?(batch.count) {
                let decided = await store.claim(batch: Array(batch[..<fault.records.lowerBound]))
                return BatchOutcome(outcomes: decided.outcomes, fault: fault)
            }
            return await store.claim(batch: batch)
        }

        func open() { lock.withLock { gate?.resume(); gate = nil } }
    }

    /// Starts `count` claims (`name1`… by `u1`…) behind a held first claim, releases it, and returns
    /// every result in order and the sizes of the writes.
    static func run(limit: Int, count: Int, writer: Writer = Writer()) async throws
        -> (results: [Result<ClaimOutcome, ClaimStoreError>], sizes: [Int]) {
        let coalescer = ClaimCoalescer(limit: limit) { await writer.write($0) }
        let results = try await withThrowingTaskGroup(of: (Int, Result<ClaimOutcome, ClaimStoreError>).self) { group in
            group.addTask { (0, await Self.result { () async throws(ClaimStoreError) in try await coalescer.claim("name0", by: "u0") }) }
            var spins = 0
            while !writer.isHolding && spins < 100_000 { await Task.yield(); spins += 1 }
            try #require(writer.isHolding, "the first claim never reached the writer")
            for index in 1...count {
                group.addTask { (index, await Self.result { () async throws(ClaimStoreError) in try await coalescer.claim("name\(index)", by: "u\(index)") }) }
                spins = 0
                while await coalescer.waitingCount < index && spins < 100_000 { await Task.yield(); spins += 1 }
                try #require(await coalescer.waitingCount == index, "claim \(index) is not waiting")
            }
            writer.open()
            var results = [Result<ClaimOutcome, ClaimStoreError>?](repeating: nil, count: count + 1)
            for try await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        return (results, writer.sizes)
    }

    static func result(_ body: () async throws(ClaimStoreError) -> ClaimOutcome) async -> Result<ClaimOutcome, ClaimStoreError> {
        do throws(ClaimStoreError) { return .success(try await body()) } catch { return .failure(error) }
    }

    @Test func claimsWaitingBehindAWriteGoTogetherInTheNextOne() async throws {
        let (results, sizes) = try await Self.run(limit: 256, count: 9)
        #expect(sizes == [1, 9])
        for (index, result) in results.enumerated() {
            let outcome = try result.get()
            #expect(outcome.claimed && outcome.name == "name\(index)" && outcome.owner == "u\(index)", "\(outcome)")
        }
    }

    @Test func aBatchHoldsAtMostTheLimitAndWaitingClaimsKeepTheirOrder() async throws {
        let (results, sizes) = try await Self.run(limit: 4, count: 9)
        #expect(sizes == [1, 4, 4, 1])
        #expect(results.map { (try? $0.get())?.name } == (0...9).map { "name\($0)" })
    }

    @Test func aFaultReachesExactlyTheClaimsOfItsTransaction() async throws {
        let writer = Writer()
        // The second write decides its first two records, then fails on the rest.
        writer.fault = { count in count == 5 ? BatchOutcome.Fault(error: ClaimStoreError(.locked, "held"), records: 2..<5) : nil }
        let (results, sizes) = try await Self.run(limit: 256, count: 5, writer: writer)
        #expect(sizes == [1, 5])
        #expect(results.map { (try? $0.get())?.claimed } == [true, true, true, nil, nil, nil])
        for result in results[3...] {
            guard case .failure(let error) = result else { Issue.record("no fault: \(result)"); continue }
            #expect(error.code == "AV3007")
        }
        #expect(try await writer.store.owner(of: "name3") == nil, "a faulted claim was stored")
    }

    @Test func aLoneClaimIsWrittenAtOnce() async throws {
        let store = MemoryClaimStore(policy: TestDisplayNamePolicy())
        let coalescer = ClaimCoalescer(limit: 8) { await store.claim(batch: $0) }
        #expect(try await coalescer.claim("alone", by: "u1").claimed)
        let second = try await coalescer.claim("ALONE", by: "u2")
        #expect(!second.claimed && second.owner == "u1" && second.problems.map(\.code) == ["AV1003"])
        #expect(await coalescer.waitingCount == 0)
    }
}
