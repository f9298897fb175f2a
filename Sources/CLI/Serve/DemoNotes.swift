import Federate
import FederateHummingbird
import Foundation
import Hummingbird
import Synchronization

/// The reference app's own data: short notes per account, to show what a merge moves.
/// `GET /app/notes` lists the session's notes, `POST /app/notes` (the text as the body,
/// CSRF-checked) adds one. Kept in this process's memory, like a toy app's data: the account
/// layer's merge hook (``move(from:to:)``) moves a merged account's notes, and a deletion
/// or a pruned guest drops them.
final class DemoNotes: Sendable {
    private let notes = Mutex<[ExactString: [String]]>([:])
    static let maxNotes = 50
    static let maxLength = 200

    /// The merge hook's work: `source`'s notes are appended to `target`'s.
    func move(from source: String, to target: String) {
        notes.withLock { notes in
            guard let moved = notes.removeValue(forKey: ExactString(source)) else { return }
            notes[ExactString(target), default: []] += moved
        }
    }

    /// Drops `uid`'s notes (a deleted account, a pruned guest).
    func drop(_ uid: String) {
        notes.withLock { _ = $0.removeValue(forKey: ExactString(uid)) }
    }

    func register(on router: Router<FederateContext>, accounts: AccountService, origin: String) {
        let group = router.group("app/notes").add(
            middleware: SessionAuthenticationMiddleware<FederateContext>(accounts: accounts, origin: origin))
        group.get { _, context in
            let uid = try Self.uid(context)
            return Self.json(["notes": .array(self.notes.withLock { $0[ExactString(uid)] ?? [] }.map(JSONValue.string))])
        }
        group.post { request, context in
            let uid = try Self.uid(context)
            var request = request
            let body = String(decoding: Array(buffer: try await request.collectBody(upTo: 1024)), as: UTF8.self)
            let text = body.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= Self.maxLength,
                !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw FederateHTTPError(
                    .badRequest, code: .invalidRequest, message: "a note is 1-\(Self.maxLength) characters without control characters")
            }
            let count = try self.notes.withLock { (notes) throws(FederateHTTPError) -> Int in
                guard (notes[ExactString(uid)]?.count ?? 0) < Self.maxNotes else {
                    throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "at most \(Self.maxNotes) notes")
                }
                notes[ExactString(uid), default: []].append(text)
                return notes[ExactString(uid)]?.count ?? 0
            }
            return Self.json(["count": .integer(Int64(count))])
        }
    }

    private static func uid(_ context: FederateContext) throws(FederateHTTPError) -> String {
        guard let session = context.federate.session else {
            throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first")
        }
        return session.uid
    }

    static func json(_ body: [String: JSONValue]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: JSONSerializer.bytes(.object(body)))))
    }
}
