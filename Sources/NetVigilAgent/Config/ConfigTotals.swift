/// What the files read so far (the main file, then each included one) have used of the whole-configuration limits in
/// ``ConfigLimits``, so that twenty files each within the per-file limits cannot add up to a load that costs gigabytes.
struct ConfigTotals {
    /// Bytes of the files read (or, for included files not read yet, their sizes from `fstat`).
    var bytes = 0
    /// Nodes written in the files scanned.
    var nodes = 0
    /// Entries of the top-level `targets:` lists scanned.
    var targets = 0

    /// Whether a limit on nodes or targets is passed: reading further files could only add errors.
    var isOverLimit: Bool {
        nodes > ConfigLimits.maxNodes || targets > ConfigLimits.maxTargets
    }
}
