# reference permutation walk (placeholder)
