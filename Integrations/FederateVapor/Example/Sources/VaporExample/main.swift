import Vapor
import VaporExampleApp

// `swift run VaporExample` (in Integrations/FederateVapor), with two dev providers running:
// `federate dev-provider --port 9000` and `federate dev-provider --port 9001`.
var environment = try Environment.detect()
try LoggingSystem.bootstrap(from: &environment)
let app = try await Application.make(environment)
do {
    try await configure(app, settings: .fromEnvironment())
    try await app.execute()
} catch {
    app.logger.report(error: error)
    try? await app.asyncShutdown()
    throw error
}
try await app.asyncShutdown()
