import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

// The layers of .dependency-cruiser.cjs (README, "Layers"), checked over the project, and over a
// planted tree with one wrong-way import per rule, to show that each rule bites.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const PLANTED = path.join(ROOT, 'test/fixtures/layers');
const FOLDERS = ['server', 'client', 'scripts', 'generated', 'test', 'toolkit'];

/** Each violation of the rules in the tree under `baseDir`, as `from → to (rule)`. */
async function violations(baseDir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(CONFIG);
  const { output } = await cruise(
    FOLDERS,
    { ...options, baseDir },
    {},
    { tsConfig: extractTSConfig(path.join(ROOT, 'tsconfig.json')) },
  );
  return (output as ICruiseResult).summary.violations
    .map((violation) => `${violation.from} → ${violation.to} (${violation.rule.name})`)
    .sort();
}

describe('import layers', () => {
  it('the project keeps its layers', async () => {
    expect(await violations(ROOT)).toEqual([]);
  });

  it('every rule bites: the planted tree breaks each once', async () => {
    const planted = await violations(PLANTED);
    expect(planted).toEqual([
      'client/dashboard/page.ts → fs (dashboard-pages-no-node)',
      'client/dashboard/page.ts → generated/types.ts (dashboard-pages-browser-only)',
      'client/sdk.ts → client/dashboard/page.ts (sdk-not-pages)',
      'client/sdk.ts → server/domain/rule.ts (client-alone)',
      'generated/skeleton.ts → server/domain/rule.ts (generated-self-contained)',
      'scripts/tool.ts → test/helper.ts (scripts-not-test)',
      'scripts/tool.ts → toolkit/src/codegen/emit.ts (service-not-into-toolkit)',
      'server/app.ts → client/sdk.ts (server-not-outside)',
      'server/database/open.ts → server/store/table.ts (database-below-store)',
      'server/domain/rule.ts → server/http/route.ts (domain-below-http-and-store)',
      'server/http/route.ts → server/dashboard/api.ts (partner-api-not-dashboard)',
      'server/sandbox/demo.ts → server/http/route.ts (sandbox-below-http)',
      'server/settlement-worker.ts → server/http/route.ts (worker-not-http)',
      'server/store/table.ts → server/database/open.ts (database-through-its-index)',
      'server/store/table.ts → server/http/route.ts (store-below-http)',
      'toolkit/src/runtime/validation.ts → server/store/table.ts (toolkit-not-service)',
    ]);
    // A rule added to the configuration needs its wrong-way import planted here too.
    const { ruleSet } = await extractDepcruiseOptions(CONFIG);
    const rules = (ruleSet?.forbidden ?? []).map((rule) => rule.name ?? '').sort();
    expect(planted.map((line) => line.slice(line.lastIndexOf('(') + 1, -1)).sort()).toEqual(rules);
  });
});
