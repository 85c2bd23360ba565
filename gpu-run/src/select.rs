//! Which steps of the table a run takes (`--steps`, `--skip`), so that a
//! whole run can be split over several calls and give the same results.

use crate::steps::Step;
use anyhow::{bail, Result};

/// The names of the steps `names` stands for: a step's name, or a group's
/// (every step of that group), or `all`.
fn expand(table: &[Step], names: &[String]) -> Result<Vec<&'static str>> {
    let mut steps = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let matched: Vec<&'static str> = table
            .iter()
            .filter(|s| name == "all" || s.name == name || s.group == Some(name))
            .map(|s| s.name)
            .collect();
        if matched.is_empty() {
            let known: Vec<&str> = table.iter().map(|s| s.name).collect();
            bail!(
                "no step or group `{name}`; steps: {}; groups: tests, sanitizers, all",
                known.join(", ")
            );
        }
        steps.extend(matched);
    }
    Ok(steps)
}

/// The steps a run takes, in the table's order: those `steps` names (every
/// step when `None`), those every selection has (the preflight, the gate),
/// and the twins when a chosen step needs them; less those `skip` names.
pub fn select(
    table: &[Step],
    steps: Option<&[String]>,
    skip: &[String],
) -> Result<Vec<&'static str>> {
    let chosen = match steps {
        Some(names) => expand(table, names)?,
        None => table.iter().map(|s| s.name).collect(),
    };
    let skipped = expand(table, skip)?;
    let needs_twins = table
        .iter()
        .any(|s| s.needs_twins && chosen.contains(&s.name) && !skipped.contains(&s.name));
    Ok(table
        .iter()
        .filter(|s| chosen.contains(&s.name) || s.always || (s.name == "twins" && needs_twins))
        .filter(|s| !skipped.contains(&s.name))
        .map(|s| s.name)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::STEPS;

    fn names(list: &str) -> Vec<String> {
        list.split(',').map(String::from).collect()
    }

    #[test]
    fn every_step_runs_by_default_in_the_tables_order() {
        let all = select(STEPS, None, &[]).unwrap();
        assert_eq!(all, STEPS.iter().map(|s| s.name).collect::<Vec<_>>());
        let gate = all.iter().position(|s| *s == "gate").unwrap();
        for later in ["planted", "memcheck", "bench", "corpus", "ports"] {
            assert!(
                all.iter().position(|s| *s == later).unwrap() > gate,
                "{later} runs after the gate"
            );
        }
    }

    #[test]
    fn a_step_that_needs_the_twins_brings_them_and_the_preflight_and_gate_come_along() {
        assert_eq!(
            select(STEPS, Some(&names("bench")), &[]).unwrap(),
            ["twins", "preflight", "gate", "bench"]
        );
        assert_eq!(
            select(STEPS, Some(&names("corpus,ports")), &[]).unwrap(),
            ["preflight", "gate", "corpus", "ports"]
        );
        assert_eq!(
            select(STEPS, Some(&names("racecheck")), &[]).unwrap(),
            ["twins", "preflight", "gate", "racecheck"]
        );
        assert_eq!(
            select(STEPS, Some(&names("planted,faults")), &[]).unwrap(),
            ["preflight", "gate", "planted", "faults"]
        );
    }

    #[test]
    fn groups_name_their_steps_and_skip_takes_them_out() {
        let tests = select(STEPS, Some(&names("tests")), &[]).unwrap();
        assert_eq!(
            tests,
            [
                "twins",
                "preflight",
                "multi-gpu",
                "multi-cuda",
                "one-gpu",
                "gpu-tests",
                "sim-tests",
                "loaded",
                "samples",
                "samples-sim",
                "cpu-tests",
                "gate"
            ]
        );
        let no_sanitizers = select(STEPS, None, &names("sanitizers")).unwrap();
        assert!(!no_sanitizers
            .iter()
            .any(|s| ["planted", "faults", "memcheck", "racecheck"].contains(s)));
        assert!(no_sanitizers.contains(&"bench"));
        let ungated = select(STEPS, Some(&names("memcheck")), &names("gate,preflight")).unwrap();
        assert_eq!(ungated, ["twins", "memcheck"]);
    }

    #[test]
    fn skipping_every_step_that_needs_the_twins_leaves_them_out() {
        let steps = select(STEPS, Some(&names("cpu-tests,bench")), &names("bench")).unwrap();
        assert_eq!(steps, ["preflight", "cpu-tests", "gate"]);
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_known_ones() {
        let err = select(STEPS, Some(&names("benchmark")), &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`benchmark`") && err.contains("bench") && err.contains("sanitizers"),
            "{err}"
        );
    }
}
