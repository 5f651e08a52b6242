import APICore
import ArgumentParser
import Foundation
import HouseholdKit
import ProductKit
import UserKit

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through what the client does, on the embedded dev server.",
        discussion: """
            REST and GraphQL calls, a cache hit, a watcher updated by a mutation, a subscription event,
            reads from the cache after the server stops, a rename made offline that waits in the queue
            (shown at once) and reaches the server when it is back, and a SQLite cache that the next run
            reads: run it twice. Each result says where it came from: [server … ms] or [cache].
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await Session.run(global, signIn: false) { session in
            try await Demo(session: session).run()
        }
    }
}

/// The demo's steps, in order.
struct Demo {
    let session: Session
    var console: Console { session.console }
    var environment: AppEnvironment { session.environment }
    let householdID = "hh-1"

    func heading(_ number: Int, _ title: String) {
        if session.options.json { return }
        console.print("")
        console.print(console.bold("\(number). \(title)"))
    }

    /// Where the last call's result came from (earlier records, such as a watcher's, are dropped).
    func lastSource() -> String { console.sources(Array(session.recorder.drain().suffix(1))) }

    /// One result: text for people, or a JSON line for scripts.
    func report(_ step: String, _ text: String, sources: String? = nil) {
        let sources = sources ?? session.sources()
        if session.options.json {
            console.printJSON(["step": .string(step), "result": .string(text), "source": .string(sources)])
        } else {
            console.print("   \(text) \(sources)")
        }
    }

    func run() async throws {
        heading(1, "What the last run left in the SQLite cache (\(session.options.cacheURL.path))")
        do {
            let households = try await environment.households.households()
            report("persisted", "households read before logging in: " + households.map(\.name).joined(separator: ", "))
        } catch {
            _ = session.recorder.drain()
            report("persisted", "nothing cached yet: this is the first run (or the cache was cleared); run the demo twice", sources: "")
        }

        heading(2, "REST: log in (POST auth/login)")
        try await session.logIn(email: Session.demoEmail, password: "pantry")
        report("login", "logged in as \(Session.demoEmail)")

        heading(3, "GraphQL: the current user and their households")
        let user = try await environment.users.currentUser()
        report("me", "\(user?.displayName ?? "nobody") <\(user?.email ?? "")>")
        let households = try await environment.households.households()
        report("households", households.map { "\($0.name) (\($0.memberCount) member\($0.memberCount == 1 ? "" : "s"))" }.joined(separator: ", "))

        heading(4, "A cache hit: the same query again")
        let again = try await environment.users.currentUser()
        report("cache-hit", "\(again?.displayName ?? "nobody") again")

        heading(5, "REST and GraphQL side by side: one product, both ways")
        session.productSource.withLock { $0 = .rest }
        let viaREST = try await environment.products.product(id: "p-11")
        report("product-rest", "GET products/p-11: \(viaREST?.name ?? "none"), \(viaREST?.price.description ?? "")")
        session.productSource.withLock { $0 = .graphQL }
        let viaGraphQL = try await environment.products.product(id: "p-11")
        report("product-graphql", "query ProductByID: \(viaGraphQL?.name ?? "none"), \(viaGraphQL?.price.description ?? "")")

        heading(6, "A watcher, updated by a mutation")
        var watcher = environment.households.watchHousehold(id: householdID).makeAsyncIterator()
        let first = try await next(&watcher, "the watched household")
        report("watch", "watching \(first.name)")
        let newName = "Home · \(Self.clock())"
        _ = try await environment.households.renameHousehold(id: householdID, to: newName)
        report("mutation", "renamed \(householdID) to \(newName)", sources: lastSource())
        let updated = try await next(&watcher, "the watcher's update")
        report("watch-update", "the watcher now sees \(updated.name)", sources: console.green("[cache, written by the mutation]"))

        heading(7, "A subscription event (householdChanged over a WebSocket)")
        let changes = environment.households.householdChanges(id: householdID)
        let received = LockedBox<[HouseholdChange]>([])
        let consumer = Task {
            for try await change in changes { received.withLock { $0.append(change) } }
        }
        defer { consumer.cancel() }
        var states = changes.states.makeAsyncIterator()
        while let state = await states.next(), state != .active {}
        // The server sets a subscription up a moment after the client sent it, and nothing tells
        // the client when: a mutation made in that moment has no event. Try again, a few times.
        var change: HouseholdChange?
        for attempt in 1...5 where change == nil {
            let member = try await environment.households.addMember(
                toHousehold: householdID, userID: "user-3", displayName: "Carol \(attempt)", role: .child)
            report("mutation", "added \(member.displayName) as \(member.role.name)", sources: lastSource())
            for _ in 0..<100 where change == nil {
                try await Task.sleep(for: .milliseconds(20))
                change = received.withLock { $0.first }
            }
        }
        guard let change else { throw ValidationError("no householdChanged event arrived after 5 mutations") }
        report("subscription", "event: \(change.kind.name) at \(change.occurredAt.iso8601), \(change.household.members.count) members now",
               sources: console.cyan("[server, WebSocket]"))
        var latest = try await next(&watcher, "the watcher's update from the event")
        while latest.members.count < change.household.members.count { latest = try await next(&watcher, "the watcher's update") }
        report("watch-update", "the watcher now sees \(latest.members.count) members", sources: console.green("[cache]"))

        heading(8, "The server stops; the cache still answers")
        if let server = session.embedded {
            await server.stop()
            report("offline", "embedded server stopped", sources: "")
            let offline = try await environment.households.households()
            report("offline-read", "households: " + offline.map(\.name).joined(separator: ", "), sources: lastSource())
            let profile = try await environment.users.currentUser()
            report("offline-read", "me: \(profile?.displayName ?? "nobody")", sources: lastSource())
            do {
                _ = try await environment.products.products(ProductSearch(text: "tea"))
                report("offline-miss", "unexpectedly answered")
            } catch {
                report("offline-miss", "a search never run before cannot be answered: \(error)", sources: "")
            }
        } else {
            report("offline", "skipped: the server at --endpoint is not ours to stop", sources: "")
        }

        heading(9, "Offline: a rename waits in the queue, shown at once, and is sent when the server is back")
        if let server = session.embedded {
            let offlineName = "Home · offline \(Self.clock())"
            guard case .queued(let queued) = try await environment.households.renameHouseholdOrQueue(id: householdID, to: offlineName) else {
                throw ValidationError("the rename was sent although the server is stopped")
            }
            report("queued", "renaming \(householdID) to \(offlineName) waits in the queue (\(queued.id.prefix(8))…)", sources: "")
            var shown = try await next(&watcher, "the optimistic rename")
            while shown.name != offlineName { shown = try await next(&watcher, "the optimistic rename") }
            report("watch-optimistic", "the watcher shows \(shown.name) at once", sources: lastSource())
            let back = try await server.restarted()
            session.restarted.withLock { $0 = back }
            report("online", "embedded server back at \(back.baseURL.absoluteString)", sources: "")
            await session.recorder.offlineQueue.replay()
            let left = try await session.recorder.offlineQueue.mutations()
            guard left.isEmpty else { throw ValidationError("the queue did not empty: \(left.map { "\($0.operationName) \($0.state)" })") }
            report("replayed", "the queue replayed: the server took the rename", sources: "")
            let confirmed = try await next(&watcher, "the server's answer")
            report("watch-update", "the watcher shows the server's answer: \(confirmed.name)", sources: lastSource())
        } else {
            report("queued", "skipped: the server at --endpoint is not ours to stop", sources: "")
        }

        heading(10, "Persistence")
        let size = ["", "-wal"].compactMap { suffix in
            try? FileManager.default.attributesOfItem(atPath: session.options.cacheURL.path + suffix)[.size] as? Int
        }.reduce(0, +)
        report("persistence", "the SQLite cache (\(size / 1024) KB) stays at \(session.options.cacheURL.path); run `pantry demo` again and step 1 reads it", sources: "")
    }

    func next(_ watcher: inout APIStream<Result<Household?, APIError>>.AsyncIterator, _ what: String) async throws -> Household {
        guard let result = await watcher.next() else { throw ValidationError("the watcher ended before \(what)") }
        guard let household = try result.get() else { throw ValidationError("household \(householdID) is gone") }
        return household
    }

    static func clock() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: Date())
    }
}
