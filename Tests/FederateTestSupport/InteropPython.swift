public import Foundation

/// The interop tests' Python: `Tests/Interop/venv.sh` run (a no-op when the venv is current;
/// the first run pip-installs the pinned PyPI packages), then the venv's interpreter.
public enum InteropPython {
    /// Thrown when the venv cannot be created: the tests fail, never skip, without Python.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What `venv.sh` printed last.
        public let stderr: String
        public var description: String { "the interop Python environment could not be created: \(stderr)" }
    }

    /// Makes sure the venv under `root` (or `FEDERATE_INTEROP_VENV`) is current and returns its
    /// `python`'s absolute path.
    public static func prepare(root: URL) async throws -> String {
        let venv = await ExternalProcess.run(["bash", "Tests/Interop/venv.sh"], in: root, timeout: 900)
        guard venv.status == 0 else { throw Unavailable(stderr: ExternalProcess.tail(venv.stderr)) }
        return ProcessInfo.processInfo.environment["FEDERATE_INTEROP_VENV"].map { $0 + "/bin/python" }
            ?? root.appendingPathComponent(".venv-interop/bin/python").path
    }
}
