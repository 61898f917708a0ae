//! Slurm: srun --mpi=pmix on one node and across two and three nodes (22.05,
//! and 24.11 from the Debian 13 root), rpmix in every slurmstepd and task.

#[allow(unused_imports)]
use rpmix_systests::*;

/// Cases of the bash drivers (tools/*-tests.sh), one test each.
mod sh {
    use super::*;
    /// tools/slurm-tests.sh
    mod srun {
        use super::*;
        driver_cases!("slurm-tests.sh", "", secs(300), [], {
            basic: "basic",
            event_host: "event-host",
            abort: "abort",
            fence_kill: "fence-kill",
            mpi_hello: "mpi-hello",
            mpi_abort: "mpi-abort",
            oex_hello: "oex-hello",
            oex_nodeinfo: "oex-nodeinfo",
            oex_client: "oex-client",
            oex_client2: "oex-client2",
            oex_dmodex: "oex-dmodex",
            impi_2: "impi-2",
            impi_4: "impi-4",
        });
    }
    /// tools/slurm2-tests.sh: every configuration runs these cases, named
    /// `<prefix>/<case>` by the driver; a configuration's own extra cases
    /// follow its prefix and environment (`{ test: "<prefix>/<case>" }`).
    macro_rules! slurm2_cases {
        ($prefix:literal, $extra:expr $(, { $($test:ident : $case:expr),* $(,)? })?) => {
            driver_cases!("slurm2-tests.sh", "", secs(600), $extra, {
                client: concat!($prefix, "/client"),
                dmodex: concat!($prefix, "/dmodex"),
                partial: concat!($prefix, "/partial"),
                absent: concat!($prefix, "/absent"),
                mpi_hello: concat!($prefix, "/mpi-hello"),
                mpi_abort: concat!($prefix, "/mpi-abort"),
                fence_kill: concat!($prefix, "/fence-kill"),
                fence_kill_data: concat!($prefix, "/fence-kill-data"),
                chaos: concat!($prefix, "/chaos"),
                impi: concat!($prefix, "/impi"),
                spawn: concat!($prefix, "/spawn"),
                $($($test: $case),*)?
            });
        };
    }
    /// two nodes
    mod two_nodes {
        use super::*;
        slurm2_cases!("slurm2", []);
    }
    /// three nodes (SLURM2_NODES=3)
    mod three_nodes {
        use super::*;
        slurm2_cases!("slurm2", [("SLURM2_NODES", "3")]);
    }
    /// Slurm 24.11 of the Debian 13 root (SLURM2_SLURM=24.11)
    mod slurm_24_11 {
        use super::*;
        slurm2_cases!("slurm2-24.11", [("SLURM2_SLURM", "24.11")]);
    }
}
