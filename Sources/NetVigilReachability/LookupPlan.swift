/// Addresses to look up (deduplicated, in target order) and which targets wait for which; rebuilt only
/// when targets or resolutions change.
struct LookupPlan: Equatable {
    /// One lookup slot per distinct address.
    var addresses: [IPAddress] = []
    /// Per target (index in the target order): its slots (none for `default` or an unresolved name).
    var slotsOfTarget: [[Int]] = []
    /// Per slot: the targets (indices in the target order) with that address.
    var targetsOfSlot: [[Int]] = []

    /// The plan for `order`, whose targets have the addresses `addresses(target)`.
    init(order: [ReachabilityTarget], addresses: (ReachabilityTarget) -> [IPAddress]) {
        var position: [IPAddress: Int] = [:]
        for target in order {
            var slots: [Int] = []
            for address in addresses(target) {
                let slot: Int
                if let known = position[address] {
                    slot = known
                } else {
                    slot = self.addresses.count
                    position[address] = slot
                    self.addresses.append(address)
                    targetsOfSlot.append([])
                }
                if !slots.contains(slot) {
                    slots.append(slot)
                    targetsOfSlot[slot].append(slotsOfTarget.count)
                }
            }
            slotsOfTarget.append(slots)
        }
    }
}
