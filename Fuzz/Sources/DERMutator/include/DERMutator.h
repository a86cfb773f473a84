// A structure-aware libFuzzer mutator for DER (certificates, chains, CRLs, OCSP responses,
// PKCS#12). Linking this target into a fuzzer defines `LLVMFuzzerCustomMutator` and
// `LLVMFuzzerCustomCrossOver` for it; see DERMutator.c for what they do.
#ifndef LARIAT_DER_MUTATOR_H
#define LARIAT_DER_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

/// One mutation of `data` (at most `max_size` bytes) seeded by `seed`; the new size.
/// The same function libFuzzer calls; exposed so tests and the harness can drive it.
size_t lariat_der_mutate(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/// Whether `data` parses as a sequence of complete DER TLVs (no bytes left over).
int lariat_der_is_well_formed(const uint8_t *data, size_t size);

#endif
