import CGSL

/// A seeded GSL random number generator and the draws the radio model needs.
///
/// The generator is owned by this object and freed in `deinit`. It is not `Sendable`: a stream belongs to one
/// pair or session, and whoever holds that pair holds its stream, so draws never race and never depend on which
/// worker ran them.
package final class RandomSource {
    /// The GSL algorithms offered; `taus2` is the default for its speed and equidistribution.
    package enum Algorithm: String, Sendable, CaseIterable {
        case taus2
        case mt19937
        case ranlxd2

        var type: UnsafePointer<gsl_rng_type> {
            switch self {
            case .taus2: nearcatch_rng_taus2()
            case .mt19937: nearcatch_rng_mt19937()
            case .ranlxd2: nearcatch_rng_ranlxd2()
            }
        }
    }

    private let generator: UnsafeMutablePointer<gsl_rng>
    /// The seed this stream started from.
    package let seed: UInt64
    /// The algorithm behind the stream.
    package let algorithm: Algorithm

    /// Creates a generator seeded with `seed`.
    ///
    /// - Parameters:
    ///   - seed: the stream's seed; taus2 and mt19937 use its low 32 bits after GSL's own seeding.
    ///   - algorithm: the GSL generator type.
    /// - Throws: ``GSLError`` with `GSL_ENOMEM` when GSL cannot allocate the state.
    package init(seed: UInt64, algorithm: Algorithm = .taus2) throws(GSLError) {
        GSLLibrary.prepare()
        guard let generator = gsl_rng_alloc(algorithm.type) else {
            throw GSLError(code: Int32(GSL_ENOMEM), function: "gsl_rng_alloc")
        }
        gsl_rng_set(generator, Self.gslSeed(seed))
        self.generator = generator
        self.seed = seed
        self.algorithm = algorithm
    }

    /// Creates the stream for one named entity of a run, so that its draws do not depend on any other stream.
    ///
    /// - Parameters:
    ///   - runSeed: the seed of the whole run.
    ///   - stream: the entity's identity (for example a pair's two peer ids), mixed into the run seed.
    package convenience init(runSeed: UInt64, stream: StreamIdentity, algorithm: Algorithm = .taus2) throws(GSLError) {
        try self.init(seed: stream.derivedSeed(from: runSeed), algorithm: algorithm)
    }

    deinit {
        gsl_rng_free(generator)
    }

    /// The seed GSL is given for `seed`. GSL documents seed 0 as "use the generator's default seed", which would make
    /// seeds 0 and that default produce the same stream; folding 0 onto a fixed odd constant keeps every seed distinct
    /// from the default.
    static func gslSeed(_ seed: UInt64) -> UInt { UInt(seed == 0 ? 0x9E37_79B9 : seed) }

    /// A uniform draw in [0, 1).
    @inline(__always)
    package func uniform() -> Double {
        gsl_rng_uniform(generator)
    }

    /// A uniform draw in [lower, upper).
    @inline(__always)
    package func uniform(in range: Range<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * gsl_rng_uniform(generator)
    }

    /// A Gaussian draw with mean 0, by GSL's ziggurat method (the fastest of its Gaussian samplers).
    @inline(__always)
    package func gaussian(sigma: Double) -> Double {
        gsl_ran_gaussian_ziggurat(generator, sigma)
    }

    /// Three Gaussian draws with mean 0, the same as three calls of ``gaussian(sigma:)`` in order.
    @inline(__always)
    package func gaussians(sigma: Double) -> SIMD3<Double> {
        var out = SIMD3<Double>()
        withUnsafeMutableBytes(of: &out) {
            nearcatch_gaussian_triple(generator, sigma, $0.baseAddress!.assumingMemoryBound(to: Double.self))
        }
        return out
    }

    /// An exponential draw with the given mean.
    @inline(__always)
    package func exponential(mean: Double) -> Double {
        gsl_ran_exponential(generator, mean)
    }

    /// 32 uniformly random bits, from two 16-bit draws so that generators of any output range serve.
    @inline(__always)
    package func bits32() -> UInt32 {
        UInt32(gsl_rng_uniform_int(generator, 65536)) << 16 | UInt32(gsl_rng_uniform_int(generator, 65536))
    }

    /// A Bernoulli trial: `true` with probability `p`.
    @inline(__always)
    package func bernoulli(_ p: Double) -> Bool {
        gsl_ran_bernoulli(generator, p) == 1
    }
}

/// Many generators of one algorithm side by side, each drawn by its index: a stream for each pair of a crowd, where
/// a venue holds millions of pairs and a ``RandomSource`` each costs three allocations (the object, GSL's handle and
/// the generator's state: about 120 bytes with the allocator's headers, for a taus2 state of 24).
///
/// Stream `i` draws exactly what a ``RandomSource`` of the same seed and algorithm draws: its state is zeroed and
/// seeded as `gsl_rng_alloc` and `gsl_rng_set` do it, and each draw is GSL's own function given a handle on the
/// stack that points at the state. Like ``RandomSource``, it belongs to whoever holds its pairs.
package final class RandomStreams {
    private let type: UnsafePointer<gsl_rng_type>
    /// Bytes from one state to the next: GSL's states are made of longs, ints and doubles, so 8-byte steps keep
    /// each aligned.
    private let stride: Int
    private var states: UnsafeMutableRawPointer?
    private var capacity = 0
    /// How many streams there are.
    package private(set) var count = 0
    /// The algorithm behind every stream.
    package let algorithm: RandomSource.Algorithm

    package init(algorithm: RandomSource.Algorithm = .taus2) {
        GSLLibrary.prepare()
        self.algorithm = algorithm
        type = algorithm.type
        stride = (type.pointee.size + 7) & ~7
    }

    deinit {
        free(states)
    }

    /// Adds a stream seeded with `seed` as ``RandomSource/init(seed:algorithm:)`` seeds it; its index is the count
    /// before.
    ///
    /// - Throws: ``GSLError`` with `GSL_ENOMEM` when the states cannot grow.
    package func append(seed: UInt64) throws(GSLError) {
        if count == capacity {
            // A large block grows by remapping its pages, without a second copy beside the first.
            let grown = max(64, capacity * 2)
            guard let moved = realloc(states, grown * stride) else {
                throw GSLError(code: Int32(GSL_ENOMEM), function: "realloc")
            }
            states = moved
            capacity = grown
        }
        let state = states! + count * stride
        state.initializeMemory(as: UInt8.self, repeating: 0, count: stride)
        count += 1
        withGenerator(count - 1) { gsl_rng_set($0, RandomSource.gslSeed(seed)) }
    }

    /// Adds the stream of one named entity of a run, as ``RandomSource/init(runSeed:stream:algorithm:)`` makes it.
    package func append(runSeed: UInt64, stream: StreamIdentity) throws(GSLError) {
        try append(seed: stream.derivedSeed(from: runSeed))
    }

    private func withGenerator<R>(_ index: Int, _ body: (UnsafePointer<gsl_rng>) -> R) -> R {
        Draws(type: type, states: states, stride: stride, count: count).withGenerator(index, body)
    }

    /// Gives `body` the streams' draws: one read of the states for a whole pass over the pairs (each read of this
    /// object's fields is a dynamic exclusivity check, about 85 instructions, as much as the draw itself). The draws
    /// must not outlive `body`: adding a stream may move the states.
    @inline(__always)
    package func withDraws<R, E: Error>(_ body: (Draws) throws(E) -> R) throws(E) -> R {
        try body(Draws(type: type, states: states, stride: stride, count: count))
    }

    /// The draws of every stream, for the length of a ``RandomStreams/withDraws(_:)``.
    package struct Draws {
        fileprivate let type: UnsafePointer<gsl_rng_type>
        fileprivate let states: UnsafeMutableRawPointer?
        fileprivate let stride: Int
        /// How many streams there are.
        package let count: Int

        @inline(__always)
        fileprivate func withGenerator<R>(_ index: Int, _ body: (UnsafePointer<gsl_rng>) -> R) -> R {
            precondition(index >= 0 && index < count, "stream \(index) of \(count)")
            var handle = gsl_rng(type: type, state: states! + index * stride)
            return withUnsafePointer(to: &handle, body)
        }

        /// A uniform draw in [0, 1) from stream `index`.
        @inline(__always)
        package func uniform(_ index: Int) -> Double {
            withGenerator(index) { gsl_rng_uniform($0) }
        }

        /// A Gaussian draw with mean 0 from stream `index`, as ``RandomSource/gaussian(sigma:)``.
        @inline(__always)
        package func gaussian(_ index: Int, sigma: Double) -> Double {
            withGenerator(index) { gsl_ran_gaussian_ziggurat($0, sigma) }
        }
    }
}
