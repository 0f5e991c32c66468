import Logging
import ServiceLifecycle

extension ServiceGroup {
    /// `services` in one group that SIGTERM and SIGINT stop gracefully within 4 s. A service that fails stops the
    /// others gracefully too (the default would cancel them, and the store writer's queue would be lost).
    static func stoppingGracefully(_ services: [any Service], logger: Logger) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(4)
        return ServiceGroup(configuration: configuration)
    }
}
