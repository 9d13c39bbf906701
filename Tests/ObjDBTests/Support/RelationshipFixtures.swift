import Foundation
@testable import ObjDB
import ObjDBTestModels

/// Makes an unmanaged owner.
func owner(_ id: Int, _ name: String = "") -> Owner {
    let owner = Owner()
    owner.id = id
    owner.name = name
    return owner
}

/// Makes an unmanaged pet.
func pet(_ id: Int, _ name: String = "") -> Pet {
    let pet = Pet()
    pet.id = id
    pet.name = name
    return pet
}

/// Makes an unmanaged address.
func address(_ city: String, latitude: Double? = nil) -> Address {
    let address = Address()
    address.city = city
    if let latitude {
        let location = Location()
        location.latitude = latitude
        address.location = location
    }
    return address
}

extension Database {
    /// The number of stored objects of a class, by name (embedded classes included).
    func storedCount(_ className: String) -> Int {
        guard let info = classInfo(named: className) else { return 0 }
        return rows.count(info)
    }

    /// Every entry of the backlink table of `className.property`: (target key, origin key).
    func backlinkEntries(_ className: String, _ property: String) throws -> [(UInt64, UInt64)] {
        guard let info = classInfo(named: className), let column = info.stored.column(of: property),
            let table = info.tables.backlinks[column]
        else { return [] }
        let txn = try requireReadableTxn()
        let cursor = try Cursor(txn, table)
        var entries: [(UInt64, UInt64)] = []
        var entry = try cursor.first()
        while let current = entry {
            entries.append((current.objectKey, current.valueObjectKey))
            entry = try cursor.next()
        }
        return entries
    }
}
