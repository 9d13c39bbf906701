import Foundation
import ObjDB

/// Models of the encryption tests, with class and property names distinctive enough to be
/// searched for in a file's bytes.
final class ZebraPatient: Object {
    @Persisted(primaryKey: true) var quokkaIdentifier: String = ""
    @Persisted(indexed: true) var wombatSurname: String = ""
    @Persisted(indexed: true) var axolotlAge: Int = 0
    @Persisted var narwhalBirthday: Date = Date(timeIntervalSince1970: 0)
    @Persisted var pangolinScan: Data = Data()
    @Persisted var okapiBalance: Double = 0
    @Persisted var tapirTags: List<String>
    @Persisted var lemurScores: Map<String, Int>
    @Persisted var capybaraAddress: ZebraAddress?
    @Persisted var dugongVisits: List<ZebraVisit>
}

final class ZebraAddress: EmbeddedObject {
    @Persisted var ibexStreet: String = ""
}

final class ZebraVisit: Object {
    @Persisted var gharialNote: String = ""
}

/// The encryption tests' keys, values and helpers.
enum EncryptionFixture {
    static let types: [ObjectBase.Type] = [ZebraPatient.self, ZebraAddress.self, ZebraVisit.self]
    static let key = Data((0..<64).map { UInt8($0) })
    static let otherKey = Data((0..<64).map { UInt8(255 - $0) })

    /// Distinctive values written to the file: none may appear in an encrypted file's bytes.
    static let surname = "Featherstonehaugh-Q7"
    static let identifier = "patient-XK42-secret"
    static let age = 0x5A5A_1234_7788
    static let birthday = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
    static let scan = Data("MRI-scan-bytes-ZQ9".utf8) + Data([0xDE, 0xAD, 0xBE, 0xEF, 0x42, 0x42])
    static let balance = 98_765.4321
    static let tag = "tag-hypertension-77"
    static let scoreKey = "score-key-cholesterol"
    static let score = 0x3C3C_4D4D
    static let street = "Rue-Encryptee-221B"
    static let note = "visit-note-confidential-9"

    static func configuration(_ url: URL, key: Data? = EncryptionFixture.key) -> Configuration {
        var config = Configuration(fileURL: url, objectTypes: types)
        config.encryptionKey = key
        return config
    }

    /// Writes one patient with every distinctive value, and `count` more plain ones.
    static func fill(_ db: Database, count: Int = 0) throws {
        try db.write {
            let p = ZebraPatient()
            p.quokkaIdentifier = identifier
            p.wombatSurname = surname
            p.axolotlAge = age
            p.narwhalBirthday = birthday
            p.pangolinScan = scan
            p.okapiBalance = balance
            p.tapirTags.append(tag)
            p.lemurScores[scoreKey] = score
            let address = ZebraAddress()
            address.ibexStreet = street
            p.capybaraAddress = address
            let visit = ZebraVisit()
            visit.gharialNote = note
            p.dugongVisits.append(visit)
            try db.add(p)
            for i in 0..<count {
                let other = ZebraPatient()
                other.quokkaIdentifier = "p\(i)"
                other.wombatSurname = "name\(i % 10)"
                other.axolotlAge = i
                try db.add(other)
            }
        }
    }

    /// Every distinctive byte string written by ``fill(_:count:)``, with a label: values in
    /// their stored encodings and the schema's names.
    static var needles: [(String, [UInt8])] {
        var needles: [(String, [UInt8])] = [
            ("surname", Array(surname.utf8)), ("identifier", Array(identifier.utf8)), ("scan", Array(scan)),
            ("tag", Array(tag.utf8)), ("score key", Array(scoreKey.utf8)), ("street", Array(street.utf8)),
            ("note", Array(note.utf8)),
            ("age as stored", withUnsafeBytes(of: Int64(age).littleEndian) { Array($0.prefix(6)) }),
            ("age as index key", withUnsafeBytes(of: (UInt64(bitPattern: Int64(age)) ^ (1 << 63)).bigEndian) { Array($0) }),
            ("birthday", withUnsafeBytes(of: birthday.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { Array($0) }),
            ("balance", withUnsafeBytes(of: balance.bitPattern.littleEndian) { Array($0) }),
            ("score", withUnsafeBytes(of: Int32(score).littleEndian) { Array($0) }),
        ]
        for name in ["ZebraPatient", "ZebraAddress", "ZebraVisit", "quokkaIdentifier", "wombatSurname", "axolotlAge",
                     "narwhalBirthday", "pangolinScan", "okapiBalance", "tapirTags", "lemurScores", "capybaraAddress",
                     "dugongVisits", "ibexStreet", "gharialNote"] {
            needles.append((name, Array(name.utf8)))
        }
        return needles
    }

    /// The labels of the needles found in `bytes`.
    static func found(in bytes: [UInt8]) -> [String] {
        needles.filter { contains(bytes, $0.1) }.map(\.0)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }
}
