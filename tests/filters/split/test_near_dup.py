import random

import numpy as np

from diagramforge.filters.split import near_dup


def picture(seed: int, n: int = 30) -> str:
    rng = random.Random(seed)
    return "\n".join(f"\\node[draw] (n{k}) at ({rng.randint(0, 99)},{rng.randint(0, 99)}) "
                     f"{{label {rng.randint(0, 10**6)}}};" for k in range(n))


def test_token_hashes_ignore_whitespace_and_split_control_words():
    a = near_dup.token_hashes("\\draw\\fill (a)--(b);")
    b = near_dup.token_hashes("  \\draw \\fill\n( a ) -- ( b ) ;")
    assert np.array_equal(a, b)
    assert a.size == 10  # \draw \fill ( a ) -- ( b ) ;
    assert not np.array_equal(near_dup.token_hashes("\\draw"), near_dup.token_hashes("\\fill"))
    assert near_dup.token_hashes("   ").size == 0


def test_signature_similarity_tracks_jaccard():
    signer = near_dup.CodeSigner(num_perm=128, seed=1, shingle=5)
    base = picture(1)
    edited = base.replace("label", "tag", 1)
    other = picture(2)
    s0, s1, s2 = (signer.signature(c) for c in (base, edited, other))
    assert (s0 == s1).mean() > 0.85
    assert (s0 == s2).mean() < 0.4  # shared syntax only (node names, brackets)
    assert signer.signature("   ") is None


def test_code_pairs_find_planted_copies_and_nothing_else():
    signer = near_dup.CodeSigner()
    codes, truth = [], set()
    for i in range(300):
        if i % 10 == 9:  # a copy of the previous picture with one token changed
            codes.append(codes[i - 1].replace("label", "text", 1))
            truth.add((i - 1, i))
        else:
            codes.append(picture(i))
    sigs = np.stack([signer.signature(c) for c in codes])
    pairs, sims = near_dup.code_pairs(sigs, np.ones(len(codes), bool), 0.8, max_bucket=64)
    assert {tuple(p) for p in pairs.tolist()} == truth
    assert (sims >= 0.8).all()


def test_bucket_pairs_all_pairs_small_star_large():
    keys = np.array([5, 1, 5, 5, 2, 9, 9, 9, 9, 9], dtype=np.uint64)
    pairs = {tuple(p) for p in near_dup.bucket_pairs(keys, max_bucket=3).tolist()}
    assert {(0, 2), (0, 3), (2, 3)} <= pairs  # bucket of three: every pair
    assert {(5, 6), (5, 7), (5, 8), (5, 9)} <= pairs and (6, 7) not in pairs  # star
    assert len(pairs) == 7


def test_image_pairs_match_brute_force():
    rng = np.random.default_rng(3)
    h = rng.integers(0, 2**63, 400, dtype=np.uint64)
    h[200:220] = h[:20] ^ (np.uint64(1) << rng.integers(0, 63, 20).astype(np.uint64))  # 1 bit
    h[220:230] = h[20:30] ^ np.uint64(0b1011)  # 3 bits
    pairs, dist = near_dup.image_pairs(h, np.ones(400, bool), max_distance=4, max_bucket=256)
    brute = {(i, j) for i in range(400) for j in range(i + 1, 400)
             if bin(int(h[i]) ^ int(h[j])).count("1") <= 4}
    assert {tuple(p) for p in pairs.tolist()} == brute and len(brute) >= 30
    assert dist.max() <= 4


def test_find_combines_signals_into_components():
    a = picture(1)
    codes = [a, a.replace("label", "x", 1), picture(5), picture(6), None]
    found = near_dup.find(codes, [None] * 5, code_threshold=0.8, num_perm=128, shingle=5,
                          seed=1, max_distance=4, hash_size=8, max_bucket=64)
    labels = found.labels.tolist()
    assert labels[0] == labels[1] and len(set(labels)) == 4
    assert "jaccard" in found.evidence()[(0, 1)]


def test_signatures_filled_one_at_a_time_in_a_memmap_find_the_same(tmp_path):
    """The split stage signs records while it streams shards, into a memmap when large."""
    a = picture(1)
    codes = [a, picture(2), a.replace("label", "x", 1), picture(5), None]
    kw = dict(num_perm=64, shingle=5, seed=3, hash_size=8)
    whole = near_dup.find(codes, [None] * 5, code_threshold=0.8, max_distance=4,
                          max_bucket=64, **kw)
    index = near_dup.Signatures(5, directory=tmp_path, image=False, **kw)
    for i in (4, 2, 0, 3, 1):  # any order of arrival
        index.add(i, codes[i], None)
    assert (tmp_path / "signatures.npy").stat().st_size >= 5 * 64 * 4
    found = index.find(code_threshold=0.8, max_distance=None, max_bucket=64)
    assert found.labels.tolist() == whole.labels.tolist()
    assert found.code_pairs.tolist() == whole.code_pairs.tolist() == [[0, 2]]
