//! Sparse matrices in CSR form, for the conjugate gradient ports: the
//! samples' random tridiagonal matrix, and `A v` on the CPU.

use crate::Lcg;

/// A sparse matrix in CSR form: row `i`'s values are
/// `values[row_offsets[i]..row_offsets[i + 1]]`, in the columns `columns`
/// at the same places.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    /// Where each row starts in `columns` and `values`, and the end.
    pub row_offsets: Vec<u32>,
    /// Each value's column.
    pub columns: Vec<u32>,
    /// The values.
    pub values: Vec<f64>,
}

impl Csr {
    /// A random symmetric tridiagonal `n x n` matrix whose diagonal is in
    /// [10, 11] and whose off-diagonals are in [0, 1] (the samples'
    /// `genTridiag`, drawing from `rng` in its order).
    pub fn tridiagonal(n: usize, rng: &mut Lcg) -> Csr {
        assert!(n >= 2, "a tridiagonal matrix of at least 2 rows");
        let mut row_offsets = Vec::with_capacity(n + 1);
        let mut columns = Vec::with_capacity(3 * n);
        let mut values = Vec::with_capacity(3 * n);
        let mut upper = Vec::with_capacity(n);
        for i in 0..n {
            row_offsets.push(columns.len() as u32);
            if i > 0 {
                columns.push(i as u32 - 1);
                values.push(upper[i - 1]);
            }
            columns.push(i as u32);
            values.push(rng.next_unit() + 10.0);
            if i + 1 < n {
                let u = rng.next_unit();
                upper.push(u);
                columns.push(i as u32 + 1);
                values.push(u);
            }
        }
        row_offsets.push(columns.len() as u32);
        Csr {
            row_offsets,
            columns,
            values,
        }
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.row_offsets.len() - 1
    }

    /// The places in `columns` and `values` of row `i`.
    pub fn row(&self, i: usize) -> std::ops::Range<usize> {
        self.row_offsets[i] as usize..self.row_offsets[i + 1] as usize
    }

    /// `A v`, row by row, each row summed left to right.
    pub fn times(&self, v: &[f64]) -> Vec<f64> {
        (0..self.rows())
            .map(|i| {
                self.row(i)
                    .map(|j| self.values[j] * v[self.columns[j] as usize])
                    .sum()
            })
            .collect()
    }

    /// The largest `|A x - b|`.
    pub fn max_error(&self, x: &[f64], b: &[f64]) -> f64 {
        self.times(x)
            .iter()
            .zip(b)
            .map(|(ax, b)| (ax - b).abs())
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tridiagonal_is_symmetric_and_dominant() {
        let a = Csr::tridiagonal(5, &mut Lcg::new(3));
        assert_eq!(a.row_offsets, [0, 2, 5, 8, 11, 13]);
        assert_eq!(a.columns, [0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4]);
        // a[0][1] == a[1][0], a[3][4] == a[4][3]
        assert_eq!(a.values[1], a.values[2]);
        assert_eq!(a.values[10], a.values[11]);
        for i in 0..5 {
            let diag = a.row(i).find(|&j| a.columns[j] as usize == i).unwrap();
            let off: f64 = a.row(i).filter(|&j| j != diag).map(|j| a.values[j]).sum();
            assert!(a.values[diag] >= 10.0 && off <= 2.0);
        }
        assert_eq!(
            a.times(&[1.0, 0.0, 0.0, 0.0, 0.0])[..2],
            [a.values[0], a.values[2]]
        );
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = a.times(&x);
        assert_eq!(a.max_error(&x, &b), 0.0);
    }
}
