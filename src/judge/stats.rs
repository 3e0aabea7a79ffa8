//! Whether a pass-rate change between two runs is beyond noise: Fisher's exact test on the
//! 2×2 table of pass / not-pass counts (two-sided, summing tables no more likely than the
//! observed one).

/// Two-sided p-value of Fisher's exact test for `[[a, b], [c, d]]`.
pub(crate) fn fisher_exact_two_sided(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let row1 = a + b;
    let col1 = a + c;
    let n = a + b + c + d;
    if n == 0 {
        return 1.0;
    }
    let log_p = |x: u64| -> f64 {
        // Hypergeometric probability of x in the top-left cell with fixed margins.
        ln_choose(col1, x) + ln_choose(n - col1, row1 - x) - ln_choose(n, row1)
    };
    let observed = log_p(a);
    let lo = row1.saturating_sub(n - col1);
    let hi = row1.min(col1);
    let mut p = 0.0;
    for x in lo..=hi {
        let lp = log_p(x);
        // Relative tolerance, as R's fisher.test does, so ties are counted.
        if lp <= observed + 1e-7 {
            p += lp.exp();
        }
    }
    p.min(1.0)
}

fn ln_choose(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_known_values() {
        // R: fisher.test(matrix(c(3,1,1,3),2))$p.value = 0.4857
        assert!((fisher_exact_two_sided(3, 1, 1, 3) - 0.4857).abs() < 1e-3);
        // R: fisher.test(matrix(c(10,0,0,10),2))$p.value = 1.083e-05
        assert!((fisher_exact_two_sided(10, 0, 0, 10) - 1.0825e-5).abs() < 1e-7);
        assert_eq!(fisher_exact_two_sided(5, 5, 5, 5), 1.0);
        assert_eq!(fisher_exact_two_sided(0, 0, 0, 0), 1.0);
    }
}
