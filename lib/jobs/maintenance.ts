/**
 * The maintenance jobs, registered as one entry: each is a pg-boss schedule
 * on its own queue, defined in one small file of lib/maintenance and listed
 * in `MAINTENANCE_JOBS` (lib/maintenance/start.ts), which also schedules and
 * works them (`maintenanceWorker`). (A RegisteredJob, lib/jobs/job-definition.ts,
 * without a queue of its own.)
 */
export const maintenanceJobs = { name: "maintenance" } as const;
