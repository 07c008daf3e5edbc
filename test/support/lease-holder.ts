/**
 * A worker process for the lease tests (test/integration/job-leases.test.ts):
 * holds a job lease on LEASE_DB_URL, fetches up to LEASE_FETCH jobs of queue
 * LEASE_QUEUE leased to it, prints `fetched <ids,...>` and waits to be killed.
 */
import pino from "pino";
import { startQueue } from "../../lib/queue/boss";
import { startJobLeaseKeeper } from "../../lib/queue/job-lease";
import { fetchLeasedJobs } from "../../lib/storage/job-rows";

const url = process.env.LEASE_DB_URL!;
const boss = await startQueue(url, { max: 2 });
const keeper = await startJobLeaseKeeper(url, { log: pino({ level: "silent" }), register: true, role: "test", heartbeatMs: 200 });
const jobs = await fetchLeasedJobs(boss.getDb(), process.env.LEASE_QUEUE!, Number(process.env.LEASE_FETCH ?? 1), keeper.leaseId()!);
console.log(`fetched ${jobs.map((j) => j.id).join(",")}`);
setInterval(() => {}, 60_000);
