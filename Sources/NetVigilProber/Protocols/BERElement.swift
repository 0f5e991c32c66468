/// One BER element (X.690) with a definite length and a one-byte tag: the little of BER the LDAP StartTLS
/// exchange needs, written out instead of a general ASN.1 library.
struct BERElement: Sendable, Equatable {
    /// The identifier octet (class, constructed bit, tag number < 31).
    var tag: UInt8
    /// The contents octets.
    var contents: ArraySlice<UInt8>
    /// The index just after the element.
    var end: Int

    /// What `read` found at an offset.
    enum Reading: Equatable {
        case element(BERElement)
        /// The element is not complete yet.
        case needsMore
        /// Not BER this reader accepts (multi-byte tag, indefinite or over-long length, more than `maxLength`).
        case invalid
    }

    /// Reads the element starting at `offset` of `bytes`.
    static func read(_ bytes: ArraySlice<UInt8>, at offset: Int, maxLength: Int) -> Reading {
        guard offset < bytes.endIndex else { return .needsMore }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { return .invalid }
        guard offset + 1 < bytes.endIndex else { return .needsMore }
        let first = bytes[offset + 1]
        var length = Int(first)
        var contentStart = offset + 2
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 3 else { return .invalid }
            guard offset + 2 + count <= bytes.endIndex else { return .needsMore }
            length = bytes[(offset + 2)..<(offset + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
            contentStart += count
        }
        guard length <= maxLength else { return .invalid }
        guard contentStart + length <= bytes.endIndex else { return .needsMore }
        return .element(BERElement(tag: tag, contents: bytes[contentStart..<(contentStart + length)], end: contentStart + length))
    }

    /// The elements inside a constructed element's contents, nil when they are not whole.
    var children: [BERElement]? {
        var result: [BERElement] = []
        var offset = contents.startIndex
        while offset < contents.endIndex {
            guard case .element(let child) = Self.read(contents, at: offset, maxLength: contents.count) else { return nil }
            result.append(child)
            offset = child.end
        }
        return result
    }

    /// The contents as a non-negative integer (INTEGER or ENUMERATED of at most 4 octets), nil otherwise.
    var integer: Int? {
        guard (1...4).contains(contents.count), contents.first! & 0x80 == 0 else { return nil }
        return contents.reduce(0) { $0 << 8 | Int($1) }
    }

    /// Encodes `tag` with `contents` (short or long definite length).
    static func encode(tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        switch contents.count {
        case ..<0x80: length = [UInt8(contents.count)]
        case ..<0x100: length = [0x81, UInt8(contents.count)]
        default: length = [0x82, UInt8(contents.count >> 8), UInt8(contents.count & 0xFF)]
        }
        return [tag] + length + contents
    }
}
