//! The skewed schedule (`cg_sim::Schedule::Skewed`): it puts the blocks of
//! a cooperative launch out of step (some block finishes a loop of
//! barriers before another has started it, where the fair schedule keeps
//! them within a step of each other), the same way for a seed, and a wait
//! that cannot end is still a fault, not a hang.

use cg_sim::device::{bar_sync, block_idx, spin, thread_idx};
use cg_sim::{launch, with_schedule, FaultKind, Schedule, Shape};
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

const BLOCKS: u32 = 8;
const STEPS: u32 = 64;

/// The order in which the blocks of a cooperative launch of `BLOCKS`
/// blocks of 32 threads start the steps of a loop of `STEPS` block
/// barriers: `(block, step)`, as thread 0 of each block logs them.
fn steps(schedule: Schedule) -> Vec<(u32, u32)> {
    let log = Mutex::new(Vec::new());
    let kernel = || {
        let site = Location::caller();
        for s in 0..STEPS {
            if thread_idx()[0] == 0 {
                log.lock().unwrap().push((block_idx()[0], s));
            }
            bar_sync(site);
        }
    };
    with_schedule(schedule, || {
        launch(Shape::new(BLOCKS, 32).cooperative(), &kernel).unwrap()
    });
    let log = log.into_inner().unwrap();
    assert_eq!(log.len(), (BLOCKS * STEPS) as usize);
    log
}

/// The most steps a block had done when another had not yet started one:
/// over every point of the log, the leader's count of steps started less
/// the laggard's.
fn greatest_lead(log: &[(u32, u32)]) -> u32 {
    let mut started = [0u32; BLOCKS as usize];
    let mut lead = 0;
    for &(b, _) in log {
        started[b as usize] += 1;
        let (max, min) = (started.iter().max(), started.iter().min());
        lead = lead.max(max.unwrap() - min.unwrap());
    }
    lead
}

/// Whether some block logged its last step before another block logged
/// its first.
fn one_finished_before_another_started(log: &[(u32, u32)]) -> bool {
    let first = |b: u32| log.iter().position(|&(x, _)| x == b).unwrap();
    let last = |b: u32| log.iter().rposition(|&(x, _)| x == b).unwrap();
    (0..BLOCKS).any(|a| (0..BLOCKS).any(|b| last(a) < first(b)))
}

#[test]
fn the_fair_schedule_keeps_the_blocks_in_step() {
    let log = steps(Schedule::Fair);
    // Pass by pass, every block takes a step (now and then two), in block
    // order.
    assert!(greatest_lead(&log) <= 2, "{log:?}");
    assert!(!one_finished_before_another_started(&log));
    assert_eq!(
        log[..BLOCKS as usize],
        (0..BLOCKS).map(|b| (b, 0)).collect::<Vec<_>>()
    );
}

#[test]
fn the_skewed_schedule_puts_blocks_out_of_step_reproducibly() {
    let mut logs = Vec::new();
    for seed in [1, 2, 3] {
        let log = steps(Schedule::Skewed { seed });
        let lead = greatest_lead(&log);
        println!("skew:{seed}: greatest lead {lead} of {STEPS} steps");
        assert!(
            one_finished_before_another_started(&log),
            "skew:{seed}: no block finished before another started (lead {lead})"
        );
        // The same seed, the same order.
        assert_eq!(log, steps(Schedule::Skewed { seed }), "skew:{seed} again");
        logs.push(log);
    }
    assert!(
        logs[0] != logs[1] && logs[1] != logs[2],
        "other seeds, other orders"
    );
}

/// The order in which the blocks of an ordinary launch of `BLOCKS`
/// one-thread blocks run.
fn block_order() -> Vec<u32> {
    let log = Mutex::new(Vec::new());
    launch(Shape::new(BLOCKS, 1), &|| {
        log.lock().unwrap().push(block_idx()[0]);
    })
    .unwrap();
    log.into_inner().unwrap()
}

#[test]
fn with_schedule_is_scoped_and_the_names_parse() {
    assert_eq!("fair".parse::<Schedule>(), Ok(Schedule::Fair));
    assert_eq!(
        "skew:42".parse::<Schedule>(),
        Ok(Schedule::Skewed { seed: 42 })
    );
    assert_eq!(Schedule::Skewed { seed: 42 }.to_string(), "skew:42");
    assert!("skew".parse::<Schedule>().is_err());
    assert!("skew:x".parse::<Schedule>().is_err());
    let in_order: Vec<u32> = (0..BLOCKS).collect();
    // The blocks of an ordinary launch in a random order under the skew.
    let skewed = with_schedule(Schedule::Skewed { seed: 4 }, block_order);
    assert_ne!(skewed, in_order);
    assert_eq!(with_schedule(Schedule::Fair, block_order), in_order);
    // Scopes nest, and a panic inside one leaves the schedule as it was.
    let inner = with_schedule(Schedule::Fair, || {
        let r = std::panic::catch_unwind(|| {
            with_schedule(Schedule::Skewed { seed: 4 }, || panic!("inside"))
        });
        assert!(r.is_err());
        block_order()
    });
    assert_eq!(inner, in_order);
}

/// A block that waits for another block's flag, set after many steps:
/// under the skew the waiting block spins while the other is held back,
/// which is neither a deadlock nor a livelock.
#[test]
fn a_wait_for_a_held_block_ends() {
    for seed in 0..8 {
        let flag = AtomicU32::new(0);
        let kernel = || {
            let site = Location::caller();
            match block_idx()[0] {
                0 => {
                    for _ in 0..STEPS {
                        bar_sync(site);
                    }
                    flag.store(1, Ordering::Relaxed);
                }
                _ => {
                    while flag.load(Ordering::Relaxed) == 0 {
                        spin();
                    }
                }
            }
        };
        with_schedule(Schedule::Skewed { seed }, || {
            launch(Shape::new(BLOCKS, 32).cooperative(), &kernel)
        })
        .unwrap_or_else(|f| panic!("skew:{seed}: {f}"));
    }
}

/// Two blocks each waiting for the other's flag before setting its own:
/// a cycle, reported as a livelock under the skew as under the fair
/// schedule, with the schedule that replays it.
#[test]
fn a_cycle_of_waits_is_still_a_livelock() {
    for schedule in [Schedule::Fair, Schedule::Skewed { seed: 5 }] {
        let flags = [AtomicU32::new(0), AtomicU32::new(0)];
        let kernel = || {
            let b = block_idx()[0] as usize;
            while flags[1 - b].load(Ordering::Relaxed) == 0 {
                spin();
            }
            flags[b].store(1, Ordering::Relaxed);
        };
        let fault = with_schedule(schedule, || {
            launch(Shape::new(2, 32).cooperative(), &kernel)
        })
        .unwrap_err();
        assert_eq!(fault.kind, FaultKind::Livelock, "{schedule}: {fault}");
        assert_eq!(
            fault.message.contains("CG_SIM_SCHEDULE=skew:5"),
            schedule != Schedule::Fair,
            "{fault}"
        );
    }
}

/// Half a block at a block barrier, the other half returned without it:
/// reported under the skew too.
#[test]
fn a_barrier_some_threads_skip_is_still_a_fault() {
    let kernel = || {
        if block_idx()[0] == 3 && thread_idx()[0] >= 16 {
            return;
        }
        bar_sync(Location::caller());
    };
    let fault = with_schedule(Schedule::Skewed { seed: 9 }, || {
        launch(Shape::new(BLOCKS, 32).cooperative(), &kernel)
    })
    .unwrap_err();
    assert_eq!(fault.kind, FaultKind::BarrierNotReached, "{fault}");
}
