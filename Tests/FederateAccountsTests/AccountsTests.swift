import Testing

/// Every account test, one at a time. Other targets' tests keep running in parallel; these
/// start a PostgreSQL cluster, dev providers and databases, and running them all at once
/// would starve the project's timing-sensitive tests (key-cache intervals) on two cores.
@Suite("Accounts", .serialized)
struct AccountsTests {}
