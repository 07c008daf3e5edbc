import type { Command } from "commander";
import { generatePassword } from "../../lib/domain/staff/bootstrap";
import {
  addStaffUser,
  changeStaffRole,
  endStaffSessions,
  grantMembership,
  listStaffWithMemberships,
  removeStaffUser,
  revokeMembership,
  setStaffOwner,
  setStaffPassword,
  type Membership,
  type StaffUser,
  type StaffUserWithMemberships,
} from "../../lib/domain/staff/staff-users";
import { CliError, emit, formatTime, table } from "../output";
import { resolveAccount } from "../resolve-account";
import { withJson, type CliApp, type JsonOptions } from "../runner";

function userJson(u: StaffUser) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    createdAt: u.createdAt.toISOString(),
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
    mustChangePassword: u.mustChangePassword,
    owner: u.isOwner,
  };
}

function membershipsJson(u: StaffUserWithMemberships) {
  return { ...userJson(u), memberships: u.memberships.map((m) => ({ accountId: m.accountId, accountName: m.accountName, role: m.role })) };
}

function describeMemberships(memberships: Membership[]): string {
  return memberships.map((m) => `${m.accountName}:${m.role}`).join(", ") || "-";
}

export function registerUsers(program: Command, app: CliApp): void {
  const users = program
    .command("users")
    .description("dashboard staff users and their accounts: add, list, grant, revoke, remove, set-role, set-owner, set-password, sign-out-everywhere");

  withJson(users.command("add"))
    .description("add a staff user, a member of an account with a role (admin, support, marketing)")
    .requiredOption("--email <email>", "sign-in email")
    .requiredOption("--role <role>", "admin, support or marketing: the role in the account")
    .option("--account <account>", "account id or name it is a member of (default: the default account)")
    .option("--owner", "an instance operator: sees every account and manages accounts")
    .option("--password <password>", "at least 8 characters (default: a random one, printed once)")
    .option("--name <name>", "display name")
    .action((opts: JsonOptions & { email: string; role: string; account?: string; owner?: boolean; password?: string; name?: string }) =>
      app.run(async ({ database }) => {
        const account = opts.account === undefined ? undefined : await resolveAccount(database, opts.account);
        const generated = opts.password === undefined ? generatePassword() : undefined;
        // A generated password is asked to be changed at the first sign-in (ADR 0505).
        const user = await addStaffUser(database, {
          email: opts.email,
          role: opts.role,
          password: opts.password ?? generated!,
          name: opts.name,
          mustChangePassword: Boolean(generated),
          accountId: account?.id,
          owner: opts.owner === true,
        });
        const [added] = await listStaffWithMemberships(database).then((all) => all.filter((u) => u.id === user.id));
        emit(opts, { ...membershipsJson(added!), ...(generated && { password: generated }) }, () => [
          `Added ${user.role} ${user.email}${user.isOwner ? " (owner)" : ""}: ${describeMemberships(added!.memberships)}`,
          ...(generated ? [`  password (shown once): ${generated}`, "  the dashboard asks to change it at the first sign-in"] : []),
        ]);
      }),
    );

  withJson(users.command("list"))
    .description("list staff users and their memberships")
    .option("--account <account>", "only the members of this account (id or name)")
    .action((opts: JsonOptions & { account?: string }) =>
      app.run(async ({ database }) => {
        const account = opts.account === undefined ? undefined : await resolveAccount(database, opts.account);
        const rows = await listStaffWithMemberships(database, { accountId: account?.id });
        emit(opts, rows.map(membershipsJson), () =>
          table(
            ["EMAIL", "ROLE", "OWNER", "ACCOUNTS", "NAME", "CREATED", "LAST SIGN-IN"],
            rows.map((u) => [
              u.email,
              u.role,
              u.isOwner ? "yes" : "-",
              describeMemberships(u.memberships),
              u.name || "-",
              formatTime(u.createdAt),
              formatTime(u.lastLoginAt),
            ]),
            account ? `No members of ${account.name}` : "No staff users: add one with `mailroom users add --email EMAIL --role admin`",
          ),
        );
      }),
    );

  withJson(users.command("grant"))
    .description("make a staff user a member of an account with a role (or change that role)")
    .requiredOption("--email <email>", "the user's email")
    .requiredOption("--account <account>", "account id or name")
    .requiredOption("--role <role>", "admin, support or marketing")
    .action((opts: JsonOptions & { email: string; account: string; role: string }) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const user = await grantMembership(database, opts.email, account.id, opts.role);
        emit(opts, membershipsJson(user), () => `${user.email} is ${opts.role.trim().toLowerCase()} of ${account.name}`);
      }),
    );

  withJson(users.command("revoke"))
    .description("end a staff user's membership of an account")
    .requiredOption("--email <email>", "the user's email")
    .requiredOption("--account <account>", "account id or name")
    .action((opts: JsonOptions & { email: string; account: string }) =>
      app.run(async ({ database }) => {
        const account = await resolveAccount(database, opts.account);
        const user = await revokeMembership(database, opts.email, account.id);
        emit(opts, membershipsJson(user), () => `${user.email} is no longer a member of ${account.name}`);
      }),
    );

  withJson(users.command("set-owner"))
    .description("grant (yes) or withdraw (no) the owner flag: owners see every account and manage accounts")
    .argument("<email>", "the user's email")
    .argument("<owner>", "yes or no")
    .action((email: string, owner: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        if (owner !== "yes" && owner !== "no") throw new CliError(`"${owner}": use yes or no`);
        const user = await setStaffOwner(database, email, owner === "yes");
        emit(opts, userJson(user), () => `${user.email} is ${user.isOwner ? "now" : "no longer"} an owner`);
      }),
    );

  withJson(users.command("remove"))
    .description("remove a staff user (never the last admin)")
    .argument("<email>", "the user's email")
    .action((email: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const user = await removeStaffUser(database, email);
        emit(opts, { ...userJson(user), removed: true }, () => `Removed ${user.email}`);
      }),
    );

  withJson(users.command("set-role"))
    .description("change a staff user's role (never demotes the last admin)")
    .argument("<email>", "the user's email")
    .argument("<role>", "admin, support or marketing")
    .action((email: string, role: string, opts: JsonOptions) =>
      app.run(async ({ database }) => {
        const user = await changeStaffRole(database, email, role);
        emit(opts, userJson(user), () => `${user.email} is now ${user.role}`);
      }),
    );

  withJson(users.command("sign-out-everywhere"))
    .description("end every dashboard session of a staff user, in every browser (a lost laptop, a shared computer)")
    .requiredOption("--email <email>", "the user's email")
    .action((opts: JsonOptions & { email: string }) =>
      app.run(async ({ database }) => {
        const user = await endStaffSessions(database, opts.email);
        emit(opts, { ...userJson(user), sessionsEnded: true }, () => `Ended every dashboard session of ${user.email}: they sign in again`);
      }),
    );

  withJson(users.command("set-password"))
    .description("set a staff user's password (ends their dashboard sessions)")
    .argument("<email>", "the user's email")
    .option("--password <password>", "at least 8 characters (default: a random one, printed once)")
    .action((email: string, opts: JsonOptions & { password?: string }) =>
      app.run(async ({ database }) => {
        const generated = opts.password === undefined ? generatePassword() : undefined;
        const user = await setStaffPassword(database, email, opts.password ?? generated!, { mustChangePassword: Boolean(generated) });
        emit(opts, { ...userJson(user), ...(generated && { password: generated }) }, () => [
          `Changed the password of ${user.email}`,
          ...(generated ? [`  password (shown once): ${generated}`, "  the dashboard asks to change it at the next sign-in"] : []),
        ]);
      }),
    );
}
