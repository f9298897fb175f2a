public import Federate

/// The one rule both integrations check before they mount a route: two routes of one method
/// overlap when some request path would match both, so one would take over the other (or, in
/// Hummingbird, trap at the second registration). A mounted route that overlaps one already
/// there is `invalid_configuration`, naming both.
///
/// Paths are compared by their components (empty ones dropped, as the routers do). A
/// component is a literal, compared byte for byte, or a parameter (`:name`, `{name}`, a
/// component holding `{`, or `*`), which matches any one component; `**` matches the rest.
public enum RouteOverlap {
    /// Whether `a` and `b` (paths such as `/auth/:provider/start`) overlap.
    static func overlaps(_ a: String, _ b: String) -> Bool {
        overlaps(components(a)[...], components(b)[...])
    }

    /// Throws `invalid_configuration` naming both routes when `method path` overlaps one of
    /// `mounted` (each a method, `GET`, and a path, `/auth/:provider/start`); `owner` names who
    /// mounts it in the message.
    public static func check(
        _ method: String, _ path: String, against mounted: [(method: String, path: String)], owner: String
    ) throws(FederateError) {
        for route in mounted where route.method.utf8.elementsEqual(method.utf8) && overlaps(route.path, path) {
            throw FederateError(
                .invalidConfiguration,
                "\(owner)'s route \(method) \(display(path)) overlaps the route \(route.method) \(display(route.path)) mounted already: give one of them another path"
            )
        }
    }

    /// `path` as written, `/` for the root.
    static func display(_ path: String) -> String { path.isEmpty ? "/" : (path.hasPrefix("/") ? path : "/" + path) }

    static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func overlaps(_ a: ArraySlice<Substring>, _ b: ArraySlice<Substring>) -> Bool {
        guard let first = a.first, let other = b.first else { return a.isEmpty && b.isEmpty }
        if first == "**" || other == "**" { return true }
        guard isParameter(first) || isParameter(other) || first.utf8.elementsEqual(other.utf8) else { return false }
        return overlaps(a.dropFirst(), b.dropFirst())
    }

    private static func isParameter(_ component: Substring) -> Bool {
        component.hasPrefix(":") || component.contains("{") || component == "*"
    }
}
