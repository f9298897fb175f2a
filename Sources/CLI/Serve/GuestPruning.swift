import Federate
import Logging
import ServiceLifecycle

/// Deletes expired guests every `interval` (``AccountService/pruneExpiredGuests(limit:)``)
/// and drops their notes; a failed round is logged and retried at the next.
struct GuestPruning: Service {
    let accounts: AccountService
    let notes: DemoNotes
    let logger: Logger
    var interval: Duration = .seconds(3600)

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do throws(FederateError) {
                var pruned = try await accounts.pruneExpiredGuests()
                while !pruned.isEmpty {
                    for uid in pruned { notes.drop(uid) }
                    logger.info("expired guests deleted", metadata: ["count": "\(pruned.count)"])
                    pruned = try await accounts.pruneExpiredGuests()
                }
            } catch {
                logger.warning("pruning expired guests failed", metadata: ["error": "\(error.code)"])
            }
            // Until the next round, or until the group shuts down.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
