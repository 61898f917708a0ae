//! Node and process maps (PMIx_generate_regex / PMIx_generate_ppn and their
//! parsing at register_nspace). rpmix's "regex" is the list itself behind an
//! `rpmix:` prefix: short, NUL-free, and readable in logs. Plain lists and
//! OpenPMIx's `raw:` form are accepted too.

use crate::abi::pmix_rank_t;

pub const PREFIX: &str = "rpmix:";

pub fn generate(input: &str) -> String {
    format!("{PREFIX}{input}")
}

fn body(s: &str) -> &str {
    s.strip_prefix(PREFIX).or_else(|| s.strip_prefix("raw:")).unwrap_or(s)
}

/// Host names of a node map, in order.
pub fn parse_nodes(s: &str) -> Vec<String> {
    body(s).split(',').map(str::trim).filter(|n| !n.is_empty()).map(String::from).collect()
}

/// Ranks per node of a process map (`0,1;2,3`; ranges `0-3` allowed).
pub fn parse_ppn(s: &str) -> Vec<Vec<pmix_rank_t>> {
    body(s)
        .split(';')
        .map(|node| {
            let mut v = Vec::new();
            for item in node.split(',').map(str::trim).filter(|x| !x.is_empty()) {
                match item.split_once('-') {
                    Some((a, b)) => {
                        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                            if b >= a && b - a < 1 << 24 {
                                v.extend(a..=b);
                            }
                        }
                    }
                    None => {
                        if let Ok(r) = item.parse() {
                            v.push(r);
                        }
                    }
                }
            }
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_round_trip() {
        assert_eq!(parse_nodes(&generate("n1,n2")), vec!["n1", "n2"]);
        assert_eq!(parse_ppn(&generate("0,1;2-4")), vec![vec![0, 1], vec![2, 3, 4]]);
        assert_eq!(parse_ppn("raw:0,1,2,3"), vec![vec![0, 1, 2, 3]]);
        assert!(!generate("a,b").contains('\0'));
    }
}
