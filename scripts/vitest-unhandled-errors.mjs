// A vitest reporter for scripts/test-all.sh: writes the number of unhandled
// errors of a run (errors outside any test, which fail the run but appear in
// no JSON test result) to $VITEST_UNHANDLED_ERRORS_FILE. A run that had any
// is a failure that rerunning its failed files cannot clear.
import fs from "node:fs";

export default class UnhandledErrorsReporter {
  onTestRunEnd(_testModules, unhandledErrors) {
    const file = process.env.VITEST_UNHANDLED_ERRORS_FILE;
    if (file) fs.writeFileSync(file, `${unhandledErrors.length}\n`);
  }
}
