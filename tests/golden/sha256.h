/* SPDX-License-Identifier: MIT */
/* tests/golden/sha256.h: SHA-256 (FIPS 180-4), written here for the golden
   hashes.  Plain C99, also valid C++; no dependency.  Speed is not the point
   (about 200-300 MB/s in one core); golden.c hashes large tables as a tree
   of chunk digests so that threads can share the work.

     golden_sha256 s;  golden_sha256_init(&s);
     golden_sha256_update(&s, data, len);  golden_sha256_final(&s, digest);

   The constants K and H0 are printed by gen_sha256_constants.py beside this
   file, from their definition (fractional bits of cube and square roots of
   the first primes); golden_sha256_selftest() checks the FIPS 180-2
   examples. */
#ifndef REPDL_TESTS_GOLDEN_SHA256_H
#define REPDL_TESTS_GOLDEN_SHA256_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct golden_sha256 {
    uint32_t h[8];
    uint64_t len;            /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;             /* bytes waiting in buf */
} golden_sha256;

#define GOLDEN_ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void golden_sha256_block(uint32_t h[8], const unsigned char *p)
{
    static const uint32_t k[64] = {
        0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u,
        0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
        0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
        0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
        0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
        0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
        0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
        0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
        0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u,
        0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
        0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u,
        0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
        0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u,
        0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
        0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
        0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
    };
    uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
    int t;
    for (t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (t = 16; t < 64; t++) {
        uint32_t s0 = GOLDEN_ROTR(w[t - 15], 7) ^ GOLDEN_ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = GOLDEN_ROTR(w[t - 2], 17) ^ GOLDEN_ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; hh = h[7];
    for (t = 0; t < 64; t++) {
        t1 = hh + (GOLDEN_ROTR(e, 6) ^ GOLDEN_ROTR(e, 11) ^ GOLDEN_ROTR(e, 25)) +
             ((e & f) ^ (~e & g)) + k[t] + w[t];
        t2 = (GOLDEN_ROTR(a, 2) ^ GOLDEN_ROTR(a, 13) ^ GOLDEN_ROTR(a, 22)) +
             ((a & b) ^ (a & c) ^ (b & c));
        hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void golden_sha256_init(golden_sha256 *s)
{
    static const uint32_t h0[8] = {
        0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
        0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
    };
    memcpy(s->h, h0, sizeof h0);
    s->len = 0;
    s->nbuf = 0;
}

static void golden_sha256_update(golden_sha256 *s, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    s->len += n;
    if (s->nbuf > 0) {
        size_t take = 64 - s->nbuf < n ? 64 - s->nbuf : n;
        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take; p += take; n -= take;
        if (s->nbuf < 64) return;
        golden_sha256_block(s->h, s->buf);
        s->nbuf = 0;
    }
    for (; n >= 64; p += 64, n -= 64) golden_sha256_block(s->h, p);
    memcpy(s->buf, p, n);
    s->nbuf = n;
}

/* Pads (0x80, zeros, 64-bit big-endian bit length) and writes the digest,
   big-endian, into out[32]. */
static void golden_sha256_final(golden_sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72];
    size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf, i;
    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    for (i = 0; i < 8; i++) pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
    golden_sha256_update(s, pad, npad + 8);
    for (i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

static void golden_sha256_hex(const unsigned char d[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    int i;
    for (i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = 0;
}

/* Hash n binary32 values as their bit patterns, little-endian (the byte
   order of every published float hash, whatever the host's). */
static inline void golden_sha256_update_f32(golden_sha256 *s, const float *x, size_t n)
{
    unsigned char buf[4096];
    size_t i = 0;
    while (i < n) {
        size_t k = 0;
        for (; i < n && k < sizeof buf; i++, k += 4) {
            uint32_t u;
            memcpy(&u, &x[i], 4);
            buf[k] = (unsigned char)u;
            buf[k + 1] = (unsigned char)(u >> 8);
            buf[k + 2] = (unsigned char)(u >> 16);
            buf[k + 3] = (unsigned char)(u >> 24);
        }
        golden_sha256_update(s, buf, k);
    }
}

/* The hex SHA-256 of n binary32 values (golden_sha256_update_f32). */
static inline void golden_sha256_hex_f32(const float *x, size_t n, char hex[65])
{
    golden_sha256 s;
    unsigned char d[32];
    golden_sha256_init(&s);
    golden_sha256_update_f32(&s, x, n);
    golden_sha256_final(&s, d);
    golden_sha256_hex(d, hex);
}

/* The examples of FIPS 180-2 (appendix B) and the empty message.  Returns
   the number of failures. */
static int golden_sha256_selftest(void)
{
    static const char *const msg[3] = {
        "", "abc", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"};
    static const char *const want[4] = {
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"};
    unsigned char d[32], a[1000];
    char hex[65];
    golden_sha256 s;
    int i, bad = 0;
    for (i = 0; i < 3; i++) {
        /* fed one byte at a time, to exercise the buffering */
        size_t j, n = strlen(msg[i]);
        golden_sha256_init(&s);
        for (j = 0; j < n; j++) golden_sha256_update(&s, msg[i] + j, 1);
        golden_sha256_final(&s, d);
        golden_sha256_hex(d, hex);
        bad += strcmp(hex, want[i]) != 0;
    }
    memset(a, 'a', sizeof a);                   /* one million 'a' */
    golden_sha256_init(&s);
    for (i = 0; i < 1000; i++) golden_sha256_update(&s, a, sizeof a);
    golden_sha256_final(&s, d);
    golden_sha256_hex(d, hex);
    bad += strcmp(hex, want[3]) != 0;
    return bad;
}

#endif /* REPDL_TESTS_GOLDEN_SHA256_H */
