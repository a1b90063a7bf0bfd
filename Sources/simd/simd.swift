// The few names of Apple's simd that proximity apps use with NearbyInteraction's directions, over the standard
// library's SIMD types, so that `import simd` and `simd_float3` compile on Linux. The functions take vectors of
// floats and of doubles of any width, as Apple's overloads do.

public typealias simd_float2 = SIMD2<Float>
public typealias simd_float3 = SIMD3<Float>
public typealias simd_float4 = SIMD4<Float>
public typealias simd_double2 = SIMD2<Double>
public typealias simd_double3 = SIMD3<Double>
public typealias simd_double4 = SIMD4<Double>

/// The length of `v`.
public func simd_length<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint { (v * v).sum().squareRoot() }
/// The squared length of `v`.
public func simd_length_squared<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint { (v * v).sum() }
/// `v` scaled to length 1.
public func simd_normalize<V: SIMD>(_ v: V) -> V where V.Scalar: FloatingPoint { v / simd_length(v) }
/// The distance between `a` and `b`.
public func simd_distance<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_length(a - b) }
/// The squared distance between `a` and `b`.
public func simd_distance_squared<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
    simd_length_squared(a - b)
}
/// The dot product of `a` and `b`.
public func simd_dot<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint { (a * b).sum() }
/// The cross product of `a` and `b`.
public func simd_cross<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> SIMD3<T> {
    SIMD3<T>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
/// A vector of three floats.
public func simd_make_float3(_ x: Float, _ y: Float, _ z: Float) -> simd_float3 { simd_float3(x, y, z) }
/// A vector of three doubles.
public func simd_make_double3(_ x: Double, _ y: Double, _ z: Double) -> simd_double3 { simd_double3(x, y, z) }
/// A vector of three floats from one of doubles, and back.
public func simd_float(_ v: simd_double3) -> simd_float3 { simd_float3(Float(v.x), Float(v.y), Float(v.z)) }
public func simd_double(_ v: simd_float3) -> simd_double3 { simd_double3(Double(v.x), Double(v.y), Double(v.z)) }
/// The shorter names of the same functions.
public func length<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_length(v) }
public func length_squared<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_length_squared(v) }
public func normalize<V: SIMD>(_ v: V) -> V where V.Scalar: FloatingPoint { simd_normalize(v) }
public func distance<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_distance(a, b) }
public func distance_squared<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
    simd_distance_squared(a, b)
}
public func dot<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_dot(a, b) }
public func cross<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> SIMD3<T> { simd_cross(a, b) }
