#ifndef NEARCATCH_CGSL_SHIM_H
#define NEARCATCH_CGSL_SHIM_H

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_multifit.h>

// Swift 6 refuses GSL's mutable global generator-type pointers as "not concurrency-safe"; reading them through
// functions keeps the globals out of Swift's sight. They are set once by GSL's static data and never written.
static inline const gsl_rng_type *nearcatch_rng_taus2(void) { return gsl_rng_taus2; }
static inline const gsl_rng_type *nearcatch_rng_mt19937(void) { return gsl_rng_mt19937; }
static inline const gsl_rng_type *nearcatch_rng_ranlxd2(void) { return gsl_rng_ranlxd2; }

// Three Gaussian draws in one call, in order: an accelerometer sample's three axes, without three calls across the
// module boundary for each of the hundreds of thousands of samples a run takes.
static inline void nearcatch_gaussian_triple(const gsl_rng *r, double sigma, double *out) {
    out[0] = gsl_ran_gaussian_ziggurat(r, sigma);
    out[1] = gsl_ran_gaussian_ziggurat(r, sigma);
    out[2] = gsl_ran_gaussian_ziggurat(r, sigma);
}

#endif
