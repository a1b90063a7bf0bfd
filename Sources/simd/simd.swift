// The few names of Apple's simd that proximity apps use with NearbyInteraction's directions, over the standard
// library's SIMD types, so that `import simd` and `simd_float3` compile on Linux.

public typealias simd_float2 = SIMD2<Float>
public typealias simd_float3 = SIMD3<Float>
public typealias simd_float4 = SIMD4<Float>
public typealias simd_double3 = SIMD3<Double>

/// The length of `v`.
public func simd_length(_ v: simd_float3) -> Float { (v * v).sum().squareRoot() }
/// The length of `v`.
public func simd_length(_ v: simd_float2) -> Float { (v * v).sum().squareRoot() }
/// `v` scaled to length 1.
public func simd_normalize(_ v: simd_float3) -> simd_float3 { v / simd_length(v) }
/// The distance between `a` and `b`.
public func simd_distance(_ a: simd_float3, _ b: simd_float3) -> Float { simd_length(a - b) }
/// The dot product of `a` and `b`.
public func simd_dot(_ a: simd_float3, _ b: simd_float3) -> Float { (a * b).sum() }
/// The cross product of `a` and `b`.
public func simd_cross(_ a: simd_float3, _ b: simd_float3) -> simd_float3 {
    simd_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
/// A vector of three floats.
public func simd_make_float3(_ x: Float, _ y: Float, _ z: Float) -> simd_float3 { simd_float3(x, y, z) }
/// The shorter names of the same functions.
public func length(_ v: simd_float3) -> Float { simd_length(v) }
public func normalize(_ v: simd_float3) -> simd_float3 { simd_normalize(v) }
public func distance(_ a: simd_float3, _ b: simd_float3) -> Float { simd_distance(a, b) }
public func dot(_ a: simd_float3, _ b: simd_float3) -> Float { simd_dot(a, b) }
public func cross(_ a: simd_float3, _ b: simd_float3) -> simd_float3 { simd_cross(a, b) }
