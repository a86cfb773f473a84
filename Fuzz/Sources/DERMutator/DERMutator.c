// Structure-aware mutation of DER for the X.509 fuzz targets.
//
// The input is read as a sequence of TLVs (one certificate, a presented chain of several, a CRL,
// an OCSP response, a PKCS#12 PFX) and parsed into a tree: constructed values, and OCTET STRING
// and BIT STRING values whose contents are themselves complete DER (extension values, the
// SubjectPublicKeyInfo key, an OCSP BasicOCSPResponse), are descended into. One to three edits
// are made on the tree, which is then written back with every enclosing length recomputed, so an
// edit deep inside an extension still yields a parseable certificate around it:
//
//   - a length made wrong on purpose (off by a few, non-minimal long form, indefinite, huge);
//   - a tag replaced by an interesting one, or a GeneralName's kind swapped ([0]..[8]);
//   - a primitive value's bytes mutated by libFuzzer, or set to edge INTEGERs, times, OIDs;
//   - a node dropped, duplicated, swapped with its sibling, or replaced by a copy of another
//     node of the same tag (extensions and GeneralNames trade places across the tree);
//   - a well-formed snippet inserted: a GeneralName of every kind, an extension (name
//     constraints, AIA, policies, policy constraints, SAN).
//
// A quarter of the calls (and every input that does not parse) go to `LLVMFuzzerMutate`, so
// byte-level mutation still happens. `LLVMFuzzerCustomCrossOver` grafts a subtree of one input
// into another (a certificate of one chain into another chain, an extension into a certificate).
// State lives in static buffers: libFuzzer calls mutators from one thread.
#include "DERMutator.h"
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

enum { MAX_NODES = 8192, MAX_DEPTH = 24, POOL_SIZE = 1 << 20, OUT_SIZE = 1 << 20 };

typedef struct {
    const uint8_t *tag;      // tag bytes (NULL for the root and for raw tails)
    const uint8_t *content;  // contents (prefix bytes included) for leaves
    uint32_t tag_len, content_len;
    uint32_t prefix;         // leading raw content bytes before the children (BIT STRING's unused-bits byte)
    int first, next, parent; // children list; -1 for none
    int has_children;
    int len_mode;            // 0 DER; 1 off by len_delta; 2 non-minimal; 3 indefinite; 4 huge
    int len_delta;
} Node;

static Node nodes[MAX_NODES];
static int node_count;
static uint8_t pool[POOL_SIZE];
static size_t pool_used;
static uint8_t out[OUT_SIZE];
static uint64_t rng_state;

static uint32_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}
static uint32_t below(uint32_t n) { return n == 0 ? 0 : next_random() % n; }

static uint8_t *pool_alloc(size_t n) {
    if (pool_used + n > POOL_SIZE) return NULL;
    uint8_t *p = pool + pool_used;
    pool_used += n;
    return p;
}

static int new_node(void) {
    if (node_count >= MAX_NODES) return -1;
    Node *n = &nodes[node_count];
    memset(n, 0, sizeof *n);
    n->first = n->next = n->parent = -1;
    return node_count++;
}

static void append_child(int parent, int child) {
    nodes[child].parent = parent;
    nodes[child].next = -1;
    if (nodes[parent].first < 0) { nodes[parent].first = child; return; }
    int c = nodes[parent].first;
    while (nodes[c].next >= 0) c = nodes[c].next;
    nodes[c].next = child;
}

/// Reads one TLV header at p (n bytes available): tag length, header length, content length.
static int read_header(const uint8_t *p, size_t n, size_t *tag_len, size_t *header_len, size_t *content_len) {
    if (n < 2) return 0;
    size_t t = 1;
    if ((p[0] & 0x1f) == 0x1f) {
        while (t < n && t < 5 && (p[t] & 0x80)) t++;
        if (t >= n || t >= 5) return 0;
        t++;
    }
    if (t >= n) return 0;
    uint8_t l = p[t];
    size_t length = 0, h = t + 1;
    if (l < 0x80) {
        length = l;
    } else {
        size_t k = l & 0x7f;
        if (k == 0 || k > 4 || h + k > n) return 0;
        for (size_t i = 0; i < k; i++) length = (length << 8) | p[h + i];
        h += k;
    }
    if (length > n - h) return 0;
    *tag_len = t;
    *header_len = h;
    *content_len = length;
    return 1;
}

static int parse_into(int parent, const uint8_t *p, size_t n, int depth);

/// Parses one TLV at p as a child of parent; tries to descend into its contents.
static int parse_one(int parent, const uint8_t *p, size_t n, size_t *used, int depth) {
    size_t t, h, c;
    if (!read_header(p, n, &t, &h, &c)) return 0;
    int i = new_node();
    if (i < 0) return 0;
    nodes[i].tag = p;
    nodes[i].tag_len = (uint32_t)t;
    nodes[i].content = p + h;
    nodes[i].content_len = (uint32_t)c;
    append_child(parent, i);
    *used = h + c;
    if (depth >= MAX_DEPTH || c == 0) return 1;
    uint8_t tag = p[0];
    uint32_t prefix = 0;
    int descend = 0;
    if (tag & 0x20) descend = 1;
    else if (tag == 0x04 && c >= 2) descend = 1;
    else if (tag == 0x03 && c >= 3 && p[h] == 0) { descend = 1; prefix = 1; }
    if (!descend) return 1;
    int saved = node_count;
    nodes[i].prefix = prefix;
    if (parse_into(i, p + h + prefix, c - prefix, depth + 1)) {
        nodes[i].has_children = 1;
    } else {
        node_count = saved;
        nodes[i].first = -1;
        nodes[i].prefix = 0;
    }
    return 1;
}

/// Parses all of p[0..<n] as TLVs under parent; 0 when some bytes are not a complete TLV.
static int parse_into(int parent, const uint8_t *p, size_t n, int depth) {
    size_t offset = 0;
    while (offset < n) {
        size_t used;
        if (!parse_one(parent, p + offset, n - offset, &used, depth)) return 0;
        offset += used;
    }
    return 1;
}

/// Parses the input: node 0 is a headerless root; bytes after the last TLV become a raw tail.
static int parse_input(const uint8_t *data, size_t size) {
    node_count = 0;
    int root = new_node();
    nodes[root].has_children = 1;
    size_t offset = 0;
    while (offset < size) {
        size_t used;
        if (!parse_one(root, data + offset, size - offset, &used, 0)) break;
        offset += used;
    }
    if (offset < size) {
        int tail = new_node();
        if (tail < 0) return 0;
        nodes[tail].content = data + offset;
        nodes[tail].content_len = (uint32_t)(size - offset);
        append_child(root, tail);
    }
    return nodes[root].first >= 0 && nodes[nodes[root].first].tag != NULL;
}

int lariat_der_is_well_formed(const uint8_t *data, size_t size) {
    size_t offset = 0;
    while (offset < size) {
        size_t t, h, c;
        if (!read_header(data + offset, size - offset, &t, &h, &c)) return 0;
        offset += h + c;
    }
    return size > 0;
}

// MARK: Writing

static size_t length_of_length(size_t n) {
    if (n < 0x80) return 1;
    size_t k = 0;
    while (n) { k++; n >>= 8; }
    return 1 + k;
}

static size_t content_size(int i);

static size_t node_size(int i) {
    Node *n = &nodes[i];
    size_t c = content_size(i);
    if (!n->tag) return c;
    size_t header = n->tag_len;
    switch (n->len_mode) {
    case 1: {
        long declared = (long)c + n->len_delta;
        header += length_of_length(declared < 0 ? 0 : (size_t)declared);
        break;
    }
    case 2: header += 1 + 3; break;
    case 3: header += 1; c += 2; break;
    case 4: header += 5; break;
    default: header += length_of_length(c);
    }
    return header + c;
}

static size_t content_size(int i) {
    Node *n = &nodes[i];
    if (!n->has_children) return n->content_len;
    size_t total = n->prefix;
    for (int c = n->first; c >= 0; c = nodes[c].next) total += node_size(c);
    return total;
}

static void put_length(uint8_t **w, size_t n) {
    if (n < 0x80) { *(*w)++ = (uint8_t)n; return; }
    size_t k = length_of_length(n) - 1;
    *(*w)++ = (uint8_t)(0x80 | k);
    for (size_t s = k; s > 0; s--) *(*w)++ = (uint8_t)(n >> (8 * (s - 1)));
}

/// Writes node i at *w; the caller has checked the total size fits.
static void write_node(int i, uint8_t **w) {
    Node *n = &nodes[i];
    size_t c = content_size(i);
    if (n->tag) {
        memcpy(*w, n->tag, n->tag_len);
        *w += n->tag_len;
        switch (n->len_mode) {
        case 1: {
            long declared = (long)c + n->len_delta;
            put_length(w, declared < 0 ? 0 : (size_t)declared);
            break;
        }
        case 2: *(*w)++ = 0x83; *(*w)++ = (uint8_t)(c >> 16); *(*w)++ = (uint8_t)(c >> 8); *(*w)++ = (uint8_t)c; break;
        case 3: *(*w)++ = 0x80; break;
        case 4: *(*w)++ = 0x84; memset(*w, 0xff, 4); *w += 4; break;
        default: put_length(w, c);
        }
    }
    if (n->has_children) {
        memcpy(*w, n->content, n->prefix);
        *w += n->prefix;
        for (int k = n->first; k >= 0; k = nodes[k].next) write_node(k, w);
    } else {
        memcpy(*w, n->content, n->content_len);
        *w += n->content_len;
    }
    if (n->tag && n->len_mode == 3) { *(*w)++ = 0; *(*w)++ = 0; }
}

// MARK: Edits

/// A uniformly chosen node other than the root; -1 when there is none.
static int random_node(void) { return node_count > 1 ? 1 + (int)below((uint32_t)node_count - 1) : -1; }

static int is_attached(int i) {
    for (int k = i; k > 0; k = nodes[k].parent) {
        int p = nodes[k].parent;
        if (p < 0) return 0;
        int found = 0;
        for (int c = nodes[p].first; c >= 0; c = nodes[c].next) if (c == k) { found = 1; break; }
        if (!found) return 0;
    }
    return 1;
}

/// A random node still in the tree matching `want` (NULL: any); tries a bounded number of times.
static int pick(int (*want)(const Node *)) {
    for (int tries = 0; tries < 64; tries++) {
        int i = random_node();
        if (i < 0) return -1;
        if (nodes[i].tag && (!want || want(&nodes[i])) && is_attached(i)) return i;
    }
    return -1;
}

static int is_primitive(const Node *n) { return !n->has_children; }
static int is_general_name(const Node *n) { return (n->tag[0] & 0xc0) == 0x80 && (n->tag[0] & 0x1f) <= 8; }
static int is_constructed(const Node *n) { return n->has_children; }
static int is_integer(const Node *n) { return n->tag[0] == 0x02; }
static int is_time(const Node *n) { return n->tag[0] == 0x17 || n->tag[0] == 0x18; }
static int is_oid(const Node *n) { return n->tag[0] == 0x06; }

static void unlink_node(int i) {
    int p = nodes[i].parent;
    if (p < 0) return;
    if (nodes[p].first == i) { nodes[p].first = nodes[i].next; return; }
    for (int c = nodes[p].first; c >= 0; c = nodes[c].next) {
        if (nodes[c].next == i) { nodes[c].next = nodes[i].next; return; }
    }
}

static void insert_after(int anchor, int i) {
    nodes[i].parent = nodes[anchor].parent;
    nodes[i].next = nodes[anchor].next;
    nodes[anchor].next = i;
}

static void insert_first(int parent, int i) {
    nodes[i].parent = parent;
    nodes[i].next = nodes[parent].first;
    nodes[parent].first = i;
}

/// A deep copy of node i (detached); -1 when the node table is full.
static int clone(int i) {
    int copy = new_node();
    if (copy < 0) return -1;
    nodes[copy] = nodes[i];
    nodes[copy].first = nodes[copy].next = nodes[copy].parent = -1;
    if (!nodes[i].has_children) return copy;
    int last = -1;
    for (int c = nodes[i].first; c >= 0; c = nodes[c].next) {
        int k = clone(c);
        if (k < 0) return -1;
        nodes[k].parent = copy;
        if (last < 0) nodes[copy].first = k; else nodes[last].next = k;
        last = k;
    }
    return copy;
}

static const uint8_t *pool_copy(const void *bytes, size_t n) {
    uint8_t *p = pool_alloc(n ? n : 1);
    if (p && n) memcpy(p, bytes, n);
    return p;
}

static void set_leaf(int i, const uint8_t *bytes, size_t n) {
    const uint8_t *p = pool_copy(bytes, n);
    if (!p) return;
    nodes[i].content = p;
    nodes[i].content_len = (uint32_t)n;
    nodes[i].has_children = 0;
    nodes[i].first = -1;
    nodes[i].prefix = 0;
}

static void set_tag(int i, uint8_t tag) {
    const uint8_t *p = pool_copy(&tag, 1);
    if (!p) return;
    nodes[i].tag = p;
    nodes[i].tag_len = 1;
}

static const uint8_t interesting_tags[] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0c, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1e, 0x30, 0x31,
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
};

/// GeneralName kinds with their natural constructed bit (otherName, x400, dirName, ediParty).
static uint8_t general_name_tag(unsigned kind) {
    static const uint8_t constructed[9] = { 1, 0, 0, 1, 1, 1, 0, 0, 0 };
    return (uint8_t)((constructed[kind] ? 0xa0 : 0x80) | kind);
}

typedef struct { const uint8_t *bytes; size_t len; } Snippet;
#define SNIP(name, ...) static const uint8_t name[] = { __VA_ARGS__ };

// GeneralNames of every kind.
SNIP(gn_upn, 0xa0, 0x1e, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x14, 0x02, 0x03,
     0xa0, 0x10, 0x0c, 0x0e, 'u', 's', 'e', 'r', '@', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c')
SNIP(gn_other_int, 0xa0, 0x0a, 0x06, 0x03, 0x2a, 0x03, 0x04, 0xa0, 0x03, 0x02, 0x01, 0x07)
SNIP(gn_other_seq, 0xa0, 0x0e, 0x06, 0x03, 0x2a, 0x03, 0x05, 0xa0, 0x07, 0x30, 0x05, 0x0c, 0x03, 'a', 'b', 'c')
SNIP(gn_email, 0x81, 0x0b, 'a', '@', 'b', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e')
SNIP(gn_dns, 0x82, 0x09, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't')
SNIP(gn_dns_wild, 0x82, 0x0b, '*', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c')
SNIP(gn_dns_nul, 0x82, 0x0c, 'g', 'o', 'o', 'd', 0x00, '.', 'e', 'v', 'i', 'l', '.', 'c')
SNIP(gn_x400, 0xa3, 0x02, 0x30, 0x00)
SNIP(gn_dirname, 0xa4, 0x10, 0x30, 0x0e, 0x31, 0x0c, 0x30, 0x0a, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x03, 'd', 'i', 'r')
SNIP(gn_edi, 0xa5, 0x09, 0xa1, 0x07, 0x0c, 0x05, 'p', 'a', 'r', 't', 'y')
SNIP(gn_uri, 0x86, 0x10, 'h', 't', 't', 'p', 's', ':', '/', '/', 'u', '.', 'e', 'x', 'a', 'm', '/', 'x')
SNIP(gn_ip4, 0x87, 0x04, 127, 0, 0, 1)
SNIP(gn_ip5, 0x87, 0x05, 127, 0, 0, 1, 9)
SNIP(gn_ip6, 0x87, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
SNIP(gn_ip17, 0x87, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
SNIP(gn_ip8, 0x87, 0x08, 10, 0, 0, 0, 255, 0, 0, 0)
SNIP(gn_rid, 0x88, 0x03, 0x2a, 0x03, 0x04)
// Extensions.
SNIP(ext_nc, 0x30, 0x1d, 0x06, 0x03, 0x55, 0x1d, 0x1e, 0x01, 0x01, 0xff, 0x04, 0x13, 0x30, 0x11,
     0xa0, 0x0f, 0x30, 0x0d, 0x82, 0x0b, '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o')
SNIP(ext_nc_ip, 0x30, 0x1a, 0x06, 0x03, 0x55, 0x1d, 0x1e, 0x01, 0x01, 0xff, 0x04, 0x10, 0x30, 0x0e,
     0xa1, 0x0c, 0x30, 0x0a, 0x87, 0x08, 10, 0, 0, 0, 255, 0, 0, 0)
SNIP(ext_nc_empty, 0x30, 0x0c, 0x06, 0x03, 0x55, 0x1d, 0x1e, 0x01, 0x01, 0xff, 0x04, 0x02, 0x30, 0x00)
SNIP(ext_aia, 0x30, 0x2a, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01, 0x04, 0x1e, 0x30, 0x1c,
     0x30, 0x1a, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x30, 0x01, 0x86, 0x0e,
     'h', 't', 't', 'p', ':', '/', '/', 'o', 'c', 's', 'p', '.', 'e', 'x')
SNIP(ext_policies, 0x30, 0x14, 0x06, 0x03, 0x55, 0x1d, 0x20, 0x04, 0x0d, 0x30, 0x0b, 0x30, 0x09,
     0x06, 0x07, 0x67, 0x81, 0x0c, 0x01, 0x02, 0x01, 0x01)
SNIP(ext_any_policy, 0x30, 0x11, 0x06, 0x03, 0x55, 0x1d, 0x20, 0x04, 0x0a, 0x30, 0x08, 0x30, 0x06, 0x06, 0x04, 0x55, 0x1d, 0x20, 0x00)
SNIP(ext_policy_constraints, 0x30, 0x0f, 0x06, 0x03, 0x55, 0x1d, 0x24, 0x01, 0x01, 0xff, 0x04, 0x05, 0x30, 0x03, 0x80, 0x01, 0x00)
SNIP(ext_policy_mappings, 0x30, 0x1a, 0x06, 0x03, 0x55, 0x1d, 0x21, 0x04, 0x13, 0x30, 0x11, 0x30, 0x0f,
     0x06, 0x06, 0x2a, 0x03, 0x04, 0x05, 0x06, 0x07, 0x06, 0x05, 0x2a, 0x03, 0x04, 0x05, 0x08)
SNIP(ext_inhibit_any, 0x30, 0x0d, 0x06, 0x03, 0x55, 0x1d, 0x36, 0x01, 0x01, 0xff, 0x04, 0x03, 0x02, 0x01, 0x00)
SNIP(ext_san_upn, 0x30, 0x2a, 0x06, 0x03, 0x55, 0x1d, 0x11, 0x04, 0x23, 0x30, 0x21,
     0xa0, 0x1f, 0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x14, 0x02, 0x03,
     0xa0, 0x11, 0x0c, 0x0f, 'u', 's', 'e', 'r', '@', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o')
SNIP(ext_bc_ca, 0x30, 0x12, 0x06, 0x03, 0x55, 0x1d, 0x13, 0x01, 0x01, 0xff, 0x04, 0x08, 0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00)
SNIP(ext_eku_any, 0x30, 0x11, 0x06, 0x03, 0x55, 0x1d, 0x25, 0x04, 0x0a, 0x30, 0x08, 0x06, 0x06, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07)
SNIP(ext_crl_idp, 0x30, 0x1b, 0x06, 0x03, 0x55, 0x1d, 0x1c, 0x01, 0x01, 0xff, 0x04, 0x11, 0x30, 0x0f,
     0xa0, 0x0d, 0xa0, 0x0b, 0x86, 0x09, 'h', 't', 't', 'p', ':', '/', '/', 'c', 'x')

#define S(name) { name, sizeof name }
static const Snippet general_names[] = {
    S(gn_upn), S(gn_other_int), S(gn_other_seq), S(gn_email), S(gn_dns), S(gn_dns_wild), S(gn_dns_nul), S(gn_x400),
    S(gn_dirname), S(gn_edi), S(gn_uri), S(gn_ip4), S(gn_ip5), S(gn_ip6), S(gn_ip17), S(gn_ip8), S(gn_rid),
};
static const Snippet extensions[] = {
    S(ext_nc), S(ext_nc_ip), S(ext_nc_empty), S(ext_aia), S(ext_policies), S(ext_any_policy), S(ext_policy_constraints),
    S(ext_policy_mappings), S(ext_inhibit_any), S(ext_san_upn), S(ext_bc_ca), S(ext_eku_any), S(ext_crl_idp),
};

/// Parses a snippet into a detached subtree; -1 on failure.
static int parse_snippet(const Snippet *s) {
    int holder = new_node();
    if (holder < 0) return -1;
    nodes[holder].has_children = 1;
    if (!parse_into(holder, s->bytes, s->len, 1) || nodes[holder].first < 0) return -1;
    int i = nodes[holder].first;
    nodes[i].next = -1;
    nodes[i].parent = -1;
    return i;
}

/// Whether node i is an extension (SEQUENCE starting with an OID under 2.5.29 or 1.3.6.1.5.5.7.1).
static int is_extension(const Node *n) {
    if (n->tag[0] != 0x30 || !n->has_children || n->first < 0) return 0;
    const Node *oid = &nodes[n->first];
    return oid->tag && oid->tag[0] == 0x06 && oid->content_len >= 3 &&
           ((oid->content[0] == 0x55 && oid->content[1] == 0x1d) || (oid->content_len == 8 && oid->content[0] == 0x2b));
}

static void edit_length(void) {
    int i = pick(NULL);
    if (i < 0) return;
    static const int deltas[] = { -2, -1, 1, 2, 127, -128 };
    nodes[i].len_mode = 1 + (int)below(4);
    nodes[i].len_delta = deltas[below(6)];
}

static void edit_tag(void) {
    int i = pick(NULL);
    if (i >= 0) set_tag(i, interesting_tags[below(sizeof interesting_tags)]);
}

static void edit_general_name_kind(void) {
    int i = pick(is_general_name);
    if (i < 0) return;
    unsigned kind = below(9);
    uint8_t tag = below(4) == 0 ? (uint8_t)(0x80 | kind | (nodes[i].tag[0] & 0x20)) : general_name_tag(kind);
    set_tag(i, tag);
}

static void edit_value(void) {
    int i = pick(is_primitive);
    if (i < 0) return;
    size_t n = nodes[i].content_len, cap = n * 2 + 16;
    uint8_t *p = pool_alloc(cap);
    if (!p) return;
    memcpy(p, nodes[i].content, n);
    if (n == 0) p[n++] = (uint8_t)next_random();
    n = LLVMFuzzerMutate(p, n, cap);
    nodes[i].content = p;
    nodes[i].content_len = (uint32_t)n;
}

static void edit_special_value(void) {
    static const uint8_t integers[][22] = {
        { 1, 0x00 }, { 1, 0xff }, { 2, 0x00, 0x7f }, { 2, 0xff, 0x80 }, { 1, 0x80 }, { 0 },
        { 21, 0x00, 0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 },
        { 20, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 },
    };
    static const char *times[] = {
        "491231235959Z", "500101000000Z", "20991231235959Z", "20250101000000.5Z", "20250101000000.000Z",
        "2025010100Z", "20250101000000+0100", "990101000000Z", "000101000000Z", "19700101000000Z",
        "99991231235959Z", "20240229000000Z", "20250230000000Z", "2025013100000Z", "",
    };
    static const uint8_t oids[][12] = {
        { 3, 0x55, 0x1d, 0x11 }, { 3, 0x55, 0x1d, 0x1e }, { 3, 0x55, 0x1d, 0x13 }, { 3, 0x55, 0x1d, 0x0f },
        { 3, 0x55, 0x1d, 0x25 }, { 3, 0x55, 0x1d, 0x20 }, { 3, 0x55, 0x1d, 0x24 }, { 3, 0x55, 0x1d, 0x23 },
        { 3, 0x55, 0x1d, 0x0e }, { 8, 0x2b, 6, 1, 5, 5, 7, 1, 1 }, { 8, 0x2b, 6, 1, 5, 5, 7, 3, 1 },
        { 4, 0x55, 0x1d, 0x20, 0x00 }, { 10, 0x2b, 6, 1, 4, 1, 0x82, 0x37, 0x14, 2, 3 }, { 3, 0x55, 0x04, 0x03 },
        { 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 4, 3, 2 }, { 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1, 11 },
        { 1, 0x80 }, { 2, 0x2a, 0x80 }, { 0 }, { 11, 0x2b, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x01 },
    };
    int i;
    switch (below(3)) {
    case 0:
        if ((i = pick(is_integer)) >= 0) {
            const uint8_t *v = integers[below(sizeof integers / sizeof integers[0])];
            set_leaf(i, v + 1, v[0]);
        }
        break;
    case 1:
        if ((i = pick(is_time)) >= 0) {
            const char *t = times[below(sizeof times / sizeof times[0])];
            set_leaf(i, (const uint8_t *)t, strlen(t));
        }
        break;
    default:
        if ((i = pick(is_oid)) >= 0) {
            const uint8_t *v = oids[below(sizeof oids / sizeof oids[0])];
            set_leaf(i, v + 1, v[0]);
        }
    }
}

static void edit_drop(void) {
    int i = pick(NULL);
    if (i >= 0) unlink_node(i);
}

static void edit_duplicate(void) {
    int i = pick(below(2) ? is_extension : NULL);
    if (i < 0) i = pick(NULL);
    if (i < 0) return;
    int copy = clone(i);
    if (copy >= 0) insert_after(i, copy);
}

static void edit_swap_siblings(void) {
    int i = pick(NULL);
    if (i < 0 || nodes[i].next < 0) return;
    int j = nodes[i].next;
    unlink_node(j);
    int p = nodes[i].parent;
    if (nodes[p].first == i) {
        insert_first(p, j);
    } else {
        int before = nodes[p].first;
        while (nodes[before].next != i) before = nodes[before].next;
        insert_after(before, j);
    }
}

/// Replaces node i with a copy of another node j with the same first tag byte.
static void edit_transplant(void) {
    int i = pick(NULL);
    if (i < 0) return;
    for (int tries = 0; tries < 64; tries++) {
        int j = pick(NULL);
        if (j < 0 || j == i || nodes[j].tag[0] != nodes[i].tag[0]) continue;
        int copy = clone(j);
        if (copy < 0) return;
        insert_after(i, copy);
        unlink_node(i);
        return;
    }
}

static void edit_insert_snippet(void) {
    int general = below(2);
    const Snippet *s = general ? &general_names[below(sizeof general_names / sizeof general_names[0])]
                               : &extensions[below(sizeof extensions / sizeof extensions[0])];
    int snippet = parse_snippet(s);
    if (snippet < 0) return;
    // Next to a node of the same family when there is one, else anywhere constructed.
    int at = pick(general ? is_general_name : is_extension);
    if (at >= 0 && below(4) != 0) {
        if (below(3) == 0) { insert_after(at, snippet); unlink_node(at); }  // replace it
        else insert_after(at, snippet);
        return;
    }
    int parent = pick(is_constructed);
    if (parent >= 0) insert_first(parent, snippet);
}

static void apply_one_edit(void) {
    switch (below(11)) {
    case 0: edit_length(); break;
    case 1: edit_tag(); break;
    case 2: edit_general_name_kind(); break;
    case 3: case 4: edit_value(); break;
    case 5: edit_special_value(); break;
    case 6: edit_drop(); break;
    case 7: edit_duplicate(); break;
    case 8: edit_swap_siblings(); break;
    case 9: edit_transplant(); break;
    default: edit_insert_snippet(); break;
    }
}

/// Writes the tree into `data`; 0 when it does not fit.
static size_t write_tree(uint8_t *data, size_t max_size) {
    size_t total = node_size(0);
    if (total == 0 || total > max_size || total > OUT_SIZE) return 0;
    uint8_t *w = out;
    write_node(0, &w);
    memcpy(data, out, total);
    return total;
}

size_t lariat_der_mutate(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    rng_state = ((uint64_t)seed << 32) ^ 0x9e3779b97f4a7c15ull ^ size;
    if (rng_state == 0) rng_state = 1;
    pool_used = 0;
    if (below(4) == 0 || size > OUT_SIZE || !parse_input(data, size)) return LLVMFuzzerMutate(data, size, max_size);
    int edits = 1 + (int)below(3);
    for (int k = 0; k < edits; k++) apply_one_edit();
    size_t written = write_tree(data, max_size);
    if (written == 0 || (written == size && below(2) == 0)) return LLVMFuzzerMutate(data, size, max_size);
    return written;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    return lariat_der_mutate(data, size, max_size, seed);
}

/// Grafts a random subtree of `data2` into `data1` (after a node with the same tag when one
/// exists, else after a random node) and writes the result to `out_data`.
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out_data, size_t max_out_size, unsigned int seed) {
    rng_state = ((uint64_t)seed << 32) ^ 0x2545f4914f6cdd1dull ^ size1 ^ ((uint64_t)size2 << 20);
    if (rng_state == 0) rng_state = 1;
    pool_used = 0;
    if (size1 > OUT_SIZE || size2 > OUT_SIZE || !parse_input(data2, size2)) return 0;
    int donor = pick(NULL);
    if (donor < 0) return 0;
    // Keep the donor's bytes: serialize it alone, then parse the receiver.
    int saved_next = nodes[donor].next;
    nodes[donor].next = -1;
    size_t donor_size = node_size(donor);
    uint8_t *donor_bytes = pool_alloc(donor_size);
    if (!donor_bytes) return 0;
    uint8_t *w = donor_bytes;
    write_node(donor, &w);
    nodes[donor].next = saved_next;
    if (!parse_input(data1, size1)) return 0;
    Snippet s = { donor_bytes, donor_size };
    int graft = parse_snippet(&s);
    if (graft < 0) return 0;
    int at = -1;
    for (int tries = 0; tries < 64 && at < 0; tries++) {
        int i = pick(NULL);
        if (i >= 0 && nodes[i].tag[0] == donor_bytes[0]) at = i;
    }
    if (at < 0) at = pick(NULL);
    if (at < 0) return 0;
    insert_after(at, graft);
    if (below(2)) unlink_node(at);
    return write_tree(out_data, max_out_size);
}
