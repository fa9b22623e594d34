//! CPU topology for adaptive core binding.
//!
//! XRPC's strategy (article section "Adaptive Core Binding"):
//!
//! 1. Take the set of CPUs this process may run on (`sched_getaffinity`), which already reflects
//!    external limits such as a Kubernetes cpuset.
//! 2. Sort it by (physical package, core, cpu), from
//!    `/sys/devices/system/cpu/cpuN/topology/{physical_package_id,core_id}`, so hyperthread
//!    siblings and cores of one NUMA package are adjacent.
//! 3. Give each epoll group a contiguous slice of that list ([`CpuTopology::group_cpus`]). Base
//!    workers are pinned to one CPU of their group's slice, extra workers float over the whole
//!    slice ([`pin_current_thread`]).
//! 4. Re-read the set when it changes ([`CpuTopology::allowed_set_changed`], polled by the
//!    watchdog).
//!
//! Reading (`detect`) is separate from parsing ([`CpuTopology::from_reader`]), so the parsing and
//! the group split are tested with fake `/sys` contents. When a topology file is missing or
//! unreadable (some containers and VMs hide them), a CPU is treated as its own core in package 0,
//! which degrades to sorting by CPU number.
//!
//! `sched_getaffinity` reports the *calling thread's* mask, so `detect` and
//! `allowed_set_changed` must run on a thread that was never pinned (the main thread at start-up,
//! the watchdog later); a pinned worker would see only its own CPUs.

use std::io;

use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

/// One CPU's place in the topology. The field order makes the derived `Ord` sort by
/// (package, core, cpu).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CpuInfo {
    /// `physical_package_id` (socket); 0 when unknown.
    pub package: usize,
    /// `core_id` within the package; the CPU number when unknown.
    pub core: usize,
    /// The logical CPU number used by `sched_setaffinity`.
    pub cpu: usize,
}

/// The allowed CPUs, sorted by (package, core, cpu).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuTopology {
    cpus: Vec<CpuInfo>,
    /// The allowed set as read, for cheap change detection.
    mask: CpuSet,
}

impl CpuTopology {
    /// Reads the calling thread's allowed CPUs and their topology from `/sys`.
    pub fn detect() -> io::Result<Self> {
        let allowed = allowed_cpus()?;
        Ok(Self::from_reader(&allowed, read_sysfs_topology))
    }

    /// Like [`detect`](Self::detect), but over every online CPU regardless of the allowed set
    /// (XRPC's `force_all_cores`).
    pub fn detect_online() -> io::Result<Self> {
        let online = std::fs::read_to_string("/sys/devices/system/cpu/online")?;
        let cpus = parse_cpu_list(&online)?;
        Ok(Self::from_reader(&cpus, read_sysfs_topology))
    }

    /// Builds the topology of the `allowed` CPUs, calling `read(cpu, file)` for the contents of
    /// `cpu{cpu}/topology/{file}`, with `file` one of `physical_package_id` and `core_id`.
    pub fn from_reader(
        allowed: &[usize],
        mut read: impl FnMut(usize, &str) -> io::Result<String>,
    ) -> Self {
        let cpus = allowed
            .iter()
            .map(|&cpu| {
                let package = read(cpu, "physical_package_id")
                    .ok()
                    .and_then(|s| parse_topology_id(&s))
                    .unwrap_or(0);
                let core = read(cpu, "core_id")
                    .ok()
                    .and_then(|s| parse_topology_id(&s))
                    .unwrap_or(cpu);
                CpuInfo { package, core, cpu }
            })
            .collect();
        Self::from_cpus(cpus)
    }

    /// Builds a topology from known CPUs, sorting them and dropping duplicates.
    pub fn from_cpus(mut cpus: Vec<CpuInfo>) -> Self {
        cpus.sort_unstable();
        cpus.dedup_by_key(|c| c.cpu);
        let mut mask = CpuSet::new();
        for c in &cpus {
            if c.cpu < CpuSet::MAX_CPU {
                mask.set(c.cpu);
            }
        }
        Self { cpus, mask }
    }

    /// The allowed CPUs, sorted by (package, core, cpu).
    pub fn cpus(&self) -> &[CpuInfo] {
        &self.cpus
    }

    /// The number of allowed CPUs.
    pub fn len(&self) -> usize {
        self.cpus.len()
    }

    /// Whether no CPU is allowed (never true for a detected topology).
    pub fn is_empty(&self) -> bool {
        self.cpus.is_empty()
    }

    /// The CPU numbers for epoll group `group` of `groups`: a contiguous slice of the sorted list,
    /// split as evenly as possible. With more groups than CPUs, each group gets one CPU and
    /// neighbouring groups share it. Empty only if the topology is empty.
    ///
    /// # Panics
    ///
    /// Panics if `group >= groups`.
    pub fn group_cpus(&self, group: usize, groups: usize) -> Vec<usize> {
        assert!(
            group < groups,
            "group {group} out of range for {groups} groups"
        );
        let n = self.cpus.len();
        if n == 0 {
            return Vec::new();
        }
        let start = (group * n / groups).min(n - 1);
        let end = ((group + 1) * n / groups).max(start + 1);
        self.cpus[start..end].iter().map(|c| c.cpu).collect()
    }

    /// Whether the calling thread's allowed set differs from the one this topology was built from:
    /// one `sched_getaffinity` call and a 128-byte compare. `false` if the call fails.
    pub fn allowed_set_changed(&self) -> bool {
        sched_getaffinity(None).is_ok_and(|now| now != self.mask)
    }
}

/// The CPUs the calling thread may run on, ascending.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    let set = sched_getaffinity(None)?;
    Ok((0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect())
}

/// Restricts the calling thread to `cpus`.
///
/// Fails with `InvalidInput` if `cpus` is empty or names a CPU beyond the kernel interface's
/// limit, and with the OS error if none of them is allowed.
pub fn pin_current_thread(cpus: &[usize]) -> io::Result<()> {
    if cpus.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "empty CPU list",
        ));
    }
    let mut set = CpuSet::new();
    for &cpu in cpus {
        if cpu >= CpuSet::MAX_CPU {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("CPU {cpu} out of range"),
            ));
        }
        set.set(cpu);
    }
    sched_setaffinity(None, &set)?;
    Ok(())
}

/// Parses a kernel CPU list such as `0-3,8,10-11` (the format of `/sys/devices/system/cpu/online`
/// and cpuset files) into ascending CPU numbers.
pub fn parse_cpu_list(list: &str) -> io::Result<Vec<usize>> {
    let bad = || io::Error::new(io::ErrorKind::InvalidData, format!("bad CPU list {list:?}"));
    let mut cpus = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        match part.split_once('-') {
            Some((a, b)) => {
                let a: usize = a.trim().parse().map_err(|_| bad())?;
                let b: usize = b.trim().parse().map_err(|_| bad())?;
                if a > b {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().map_err(|_| bad())?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Parses a topology id file. Some platforms report `-1` for an unknown package; that and any
/// other unparsable value count as unknown.
fn parse_topology_id(s: &str) -> Option<usize> {
    s.trim()
        .parse::<i64>()
        .ok()
        .and_then(|v| usize::try_from(v).ok())
}

fn read_sysfs_topology(cpu: usize, file: &str) -> io::Result<String> {
    std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{file}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A fake `/sys`: two packages, two cores each, two hyperthreads per core, numbered the way
    /// Linux usually does (siblings `n` and `n + 4`).
    fn fake_sys() -> HashMap<(usize, &'static str), String> {
        let mut m = HashMap::new();
        for cpu in 0..8 {
            let package = (cpu % 4) / 2;
            let core = cpu % 2;
            m.insert((cpu, "physical_package_id"), format!("{package}\n"));
            m.insert((cpu, "core_id"), format!("{core}\n"));
        }
        m
    }

    fn topo(allowed: &[usize], sys: &HashMap<(usize, &'static str), String>) -> CpuTopology {
        CpuTopology::from_reader(allowed, |cpu, file| {
            sys.get(&(cpu, file))
                .cloned()
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
        })
    }

    #[test]
    fn sorts_by_package_core_cpu() {
        let t = topo(&(0..8).collect::<Vec<_>>(), &fake_sys());
        let order: Vec<_> = t.cpus().iter().map(|c| c.cpu).collect();
        // package 0: core 0 = {0,4}, core 1 = {1,5}; package 1: core 0 = {2,6}, core 1 = {3,7}
        assert_eq!(order, [0, 4, 1, 5, 2, 6, 3, 7]);
        assert_eq!(
            t.cpus()[2],
            CpuInfo {
                package: 0,
                core: 1,
                cpu: 1
            }
        );
    }

    #[test]
    fn respects_the_allowed_set() {
        let t = topo(&[7, 1, 2], &fake_sys());
        let order: Vec<_> = t.cpus().iter().map(|c| c.cpu).collect();
        assert_eq!(order, [1, 2, 7]);
    }

    #[test]
    fn missing_or_negative_ids_fall_back() {
        let mut sys = fake_sys();
        sys.remove(&(3, "core_id"));
        sys.insert((5, "physical_package_id"), "-1\n".into());
        let t = topo(&[3, 5], &sys);
        assert_eq!(
            t.cpus(),
            [
                CpuInfo {
                    package: 0,
                    core: 1,
                    cpu: 5
                },
                CpuInfo {
                    package: 1,
                    core: 3,
                    cpu: 3
                },
            ]
        );
        let bare = CpuTopology::from_reader(&[2, 0, 1], |_, _| Err(io::ErrorKind::NotFound.into()));
        let order: Vec<_> = bare.cpus().iter().map(|c| c.cpu).collect();
        assert_eq!(order, [0, 1, 2]);
    }

    #[test]
    fn groups_get_contiguous_slices() {
        let t = topo(&(0..8).collect::<Vec<_>>(), &fake_sys());
        assert_eq!(t.group_cpus(0, 2), [0, 4, 1, 5]);
        assert_eq!(t.group_cpus(1, 2), [2, 6, 3, 7]);
        assert_eq!(t.group_cpus(0, 1).len(), 8);
        // Uneven: 8 CPUs in 3 groups -> 2, 3, 3, covering each CPU exactly once.
        let split: Vec<_> = (0..3).map(|g| t.group_cpus(g, 3)).collect();
        assert_eq!(split.iter().map(Vec::len).collect::<Vec<_>>(), [2, 3, 3]);
        let mut all: Vec<_> = split.concat();
        all.sort_unstable();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn more_groups_than_cpus_share() {
        let t = topo(&[0, 1], &fake_sys());
        let split: Vec<_> = (0..4).map(|g| t.group_cpus(g, 4)).collect();
        assert_eq!(split, [vec![0], vec![0], vec![1], vec![1]]);
        let one = topo(&[3], &fake_sys());
        assert_eq!(one.group_cpus(2, 3), [3]);
        assert!(
            CpuTopology::from_cpus(Vec::new())
                .group_cpus(0, 1)
                .is_empty()
        );
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn group_out_of_range_panics() {
        topo(&[0], &fake_sys()).group_cpus(1, 1);
    }

    #[test]
    fn parses_cpu_lists() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n").unwrap(),
            [0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(parse_cpu_list("5").unwrap(), [5]);
        assert_eq!(parse_cpu_list("").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_cpu_list("3,1-2,2").unwrap(), [1, 2, 3]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("a").is_err());
    }

    #[test]
    fn detects_this_machine() {
        let t = CpuTopology::detect().unwrap();
        assert!(!t.is_empty());
        assert_eq!(t.len(), allowed_cpus().unwrap().len());
        assert!(!t.allowed_set_changed());
        // A topology built from a different set reports a change.
        let other = CpuTopology::from_cpus(vec![CpuInfo {
            package: 0,
            core: 0,
            cpu: 1023,
        }]);
        assert!(other.allowed_set_changed());
    }

    #[test]
    fn pins_a_thread() {
        let t = CpuTopology::detect().unwrap();
        let target = t.cpus()[t.len() - 1].cpu;
        std::thread::spawn(move || {
            pin_current_thread(&[target]).unwrap();
            assert_eq!(allowed_cpus().unwrap(), [target]);
        })
        .join()
        .unwrap();
        assert!(pin_current_thread(&[]).is_err());
        assert!(pin_current_thread(&[CpuSet::MAX_CPU]).is_err());
    }
}
