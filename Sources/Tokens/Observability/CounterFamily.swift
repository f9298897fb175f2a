package import CoreMetrics
import Synchronization

/// The counters of one metric name, one per combination of dimension values, each created on
/// first use and kept: counting an outcome seen before creates nothing.
package final class CounterFamily: Sendable {
    /// The metric name.
    package let label: String
    /// The dimension names, in the order ``increment(_:)`` takes their values.
    package let keys: [String]
    private let factory: any MetricsFactory
    private let counters = Mutex<[[String]: Counter]>([:])

    /// A family of counters named `label` with dimensions `keys`.
    init(label: String, keys: [String], factory: any MetricsFactory) {
        self.label = label
        self.keys = keys
        self.factory = factory
    }

    /// The counter for `values` (one per key, in order).
    package func counter(_ values: [String]) -> Counter {
        counters.withLock { counters in
            if let existing = counters[values] { return existing }
            let counter = Counter(label: label, dimensions: Array(zip(keys, values)), factory: factory)
            counters[values] = counter
            return counter
        }
    }

    /// Adds one to the counter for `values`.
    package func increment(_ values: String...) {
        counter(values).increment()
    }
}
