#if OBJDB_INTERNAL_CHECKS
/// A row kernel checked against its slow twin, the general loop of the filter it was made from
/// (``RowFilter/matches(_:)``), on every row: a build with internal checks stops at the first row
/// they disagree on. With ``FastPaths/broken`` naming `rowKernels` (tests only), the kernel's
/// answer is inverted first, so that a test can see the check catch a wrong kernel.
struct CheckedKernel<Kernel: RowPredicate>: RowPredicate {
    let kernel: Kernel
    let reference: RowFilter
    let inverts = FastPaths.broken.contains(.rowKernels)

    func matches(_ row: RowView) -> Bool { matchBit(row) != 0 }

    func matchBit(_ row: RowView) -> UInt8 {
        var bit = kernel.matchBit(row)
        internalCheck(bit <= 1, "the row kernel \(Kernel.self) gave the match bit \(bit)")
        internalCheck((kernel.matches(row) ? 1 : 0) == bit, "the row kernel \(Kernel.self) gives different answers from matches and matchBit")
        if inverts { bit ^= 1 }
        internalCheck(
            (bit != 0) == reference.matches(row),
            "the row kernel \(Kernel.self) (\(reference.shape)) disagrees with the filter's general loop")
        return bit
    }
}
#endif
