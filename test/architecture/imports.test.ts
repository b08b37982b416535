import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  describeCircle,
  folderCircles,
  type ImportGraph,
  type ImportSite,
  importGraph,
  importSpecifiers,
  packageOf,
} from './imports';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A graph of `from -> to` file pairs, as the scanner would give it. */
function graphOf(pairs: readonly (readonly [string, string])[]): ImportGraph {
  const imports: ImportSite[] = pairs.map(([file, to], i) => ({
    file,
    line: i + 1,
    specifier: `./${to}`,
    to,
  }));
  return { files: [...new Set(pairs.flat())], imports };
}

describe('Function: importSpecifiers', () => {
  it('reads static, type-only, re-exported, side-effect, dynamic and required imports', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c/d';",
      "export { e } from './e';",
      "export * from './f';",
      "import './g';",
      "const h = await import('./h');",
      "const i = require('node:i');",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual([
      { specifier: './a', line: 1 },
      { specifier: '../b', line: 2 },
      { specifier: './c/d', line: 6 },
      { specifier: './e', line: 7 },
      { specifier: './f', line: 8 },
      { specifier: './g', line: 9 },
      { specifier: './h', line: 10 },
      { specifier: 'node:i', line: 11 },
    ]);
  });

  it('ignores imports written in comments and strings', () => {
    const text = [
      "// import { a } from './a';",
      "/* import('./b') */",
      'const script = "import(\'./c\').then(run)";',
      'const module = `',
      "import { d } from './d';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal's hole
      'await import(${JSON.stringify(`./e`)});',
      '`;',
      "export const f = 'from ./f';",
      "import { g } from './g';",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual([{ specifier: './g', line: 9 }]);
  });
});

describe('Function: packageOf', () => {
  it('names the package of a bare specifier, scoped or not, and nothing for the rest', () => {
    expect(packageOf('@aws-sdk/client-sns')).toBe('@aws-sdk/client-sns');
    expect(packageOf('aws-cdk-lib/aws-sns')).toBe('aws-cdk-lib');
    expect(packageOf('zod/mini')).toBe('zod');
    expect(packageOf('node:fs')).toBeUndefined();
    expect(packageOf('../shared/config/load')).toBeUndefined();
  });
});

describe('Function: folderCircles', () => {
  it('finds two folders importing each other and names the imports that do it', () => {
    const circles = folderCircles(
      graphOf([
        ['cli/main.ts', 'cli/commands/poll.ts'],
        ['cli/commands/poll.ts', 'cli/main.ts'],
      ]),
    );
    expect(circles.map(describeCircle)).toEqual([
      [
        'cli -> cli/commands -> cli',
        "  cli/main.ts:1 imports './cli/commands/poll.ts'",
        "  cli/commands/poll.ts:2 imports './cli/main.ts'",
      ].join('\n'),
    ]);
  });

  it('finds a loop through three folders', () => {
    const circles = folderCircles(
      graphOf([
        ['shared/api/client.ts', 'shared/ports/types.ts'],
        ['shared/ports/types.ts', 'shared/engine/types.ts'],
        ['shared/engine/plan.ts', 'shared/api/types.ts'],
      ]),
    );
    expect(circles.map((circle) => circle.steps.map((step) => step.from))).toEqual([
      ['shared/api', 'shared/ports', 'shared/engine'],
    ]);
    expect(circles[0]?.steps.map((step) => step.site.file)).toEqual([
      'shared/api/client.ts',
      'shared/ports/types.ts',
      'shared/engine/plan.ts',
    ]);
  });

  it('lets the files of one folder import each other, and a folder import a lower one', () => {
    const circles = folderCircles(
      graphOf([
        ['shared/records/batch.ts', 'shared/records/parse.ts'],
        ['shared/records/parse.ts', 'shared/records/batch.ts'],
        ['shared/conditions/scan.ts', 'shared/records/batch.ts'],
        ['shared/engine/observe.ts', 'shared/conditions/scan.ts'],
        ['shared/engine/observe.ts', 'shared/records/batch.ts'],
      ]),
    );
    expect(circles).toEqual([]);
  });
});

describe('The repository', () => {
  const graph = importGraph(ROOT);

  it('reads the source of every room and resolves every relative import to a file', () => {
    const rooms = new Set(graph.files.map((file) => file.split('/')[0]));
    for (const room of ['shared', 'functions', 'infra', 'cli', 'simulator', 'bench', 'test']) {
      expect(rooms).toContain(room);
    }
    const unresolved = graph.imports
      .filter((site) => site.specifier.startsWith('.') && site.to === undefined)
      .map((site) => `${site.file}:${site.line} '${site.specifier}'`);
    expect(unresolved).toEqual([]);
  });

  it('has no import circle between folders, direct or through a longer loop', () => {
    expect(folderCircles(graph).map(describeCircle)).toEqual([]);
  });

  /**
   * The rooms' walls (docs/architecture.md): what each may import besides node built-ins. A
   * relative import is judged by the file it reaches, a package by its name.
   */
  const WALLS: Record<string, (target: string, file: string) => boolean> = {
    // The domain: no AWS SDK, no CDK, no Lambda tooling; zod, the local state file's lock and
    // the phone numbers' library each only through its one module.
    shared: (target, file) =>
      target.startsWith('shared/') ||
      target === 'yaml' ||
      (target === 'zod' && file === 'shared/schema/zod.ts') ||
      (target === 'proper-lockfile' && file === 'shared/ports/file-lock.ts') ||
      (target === 'libphonenumber-js' && file === 'shared/phone/numbers.ts'),
    simulator: (target) => target.startsWith('simulator/') || target.startsWith('shared/'),
    functions: (target) =>
      target === 'aws-lambda' ||
      ['functions/', 'shared/', '@aws-sdk/', '@aws-lambda-powertools/', '@middy/'].some((room) =>
        target.startsWith(room),
      ),
    // infra points NodejsFunction at entry files; it never imports functions/ code. Of shared/
    // it reads the rules file, which channels have SMS subscribers and the metric names.
    infra: (target) =>
      [
        'infra/',
        'shared/config/',
        'shared/types/',
        'shared/messages/sms-attributes.ts',
        'shared/observability/',
        'aws-cdk-lib',
        'constructs',
        'cdk-nag',
      ].some((room) => target.startsWith(room)),
    cli: (target) => !['infra/', 'bench/', 'test/'].some((room) => target.startsWith(room)),
    // The e2e tests measure the bench; the bench measuring them would be a loop.
    bench: (target) => !target.startsWith('test/e2e/'),
  };

  /** Every repository file `entry` reaches through its imports, type-only ones included. */
  function reachable(entry: string): Set<string> {
    const seen = new Set([entry]);
    const queue = [entry];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      for (const site of graph.imports) {
        if (site.file !== file || site.to === undefined || seen.has(site.to)) continue;
        seen.add(site.to);
        queue.push(site.to);
      }
    }
    return seen;
  }

  it.each(['functions/live-calls.ts', 'functions/payments.ts'])(
    '%s reaches neither the notifier nor its store or publisher: the notifier function alone sends messages',
    (entry) => {
      const files = [...reachable(entry)];
      expect(files).toContain('shared/runner/run.ts');
      expect(
        files.filter(
          (file) =>
            file.startsWith('shared/notifier/') ||
            file.startsWith('functions/notifier') ||
            [
              'dynamodb-notifier.ts',
              'sns-messages.ts',
              'notifier-step.ts',
              'notifier-round.ts',
            ].some((name) => file.endsWith(`/${name}`)),
        ),
      ).toEqual([]);
    },
  );

  it.each(['functions/live-calls.ts', 'functions/payments.ts'])(
    '%s reaches no SNS client: one way out, a poller commits its events and publishes nothing',
    (entry) => {
      const files = reachable(entry);
      const sns = graph.imports.filter(
        (site) => files.has(site.file) && site.specifier.startsWith('@aws-sdk/client-sns'),
      );
      expect(sns.map((site) => `${site.file}:${site.line}`)).toEqual([]);
    },
  );

  it.each(Object.keys(WALLS))('keeps %s/ within its walls', (room) => {
    const allowed = WALLS[room] as (target: string, file: string) => boolean;
    const breaches = graph.imports
      .filter((site) => site.file.startsWith(`${room}/`))
      .flatMap((site) => {
        const target = site.to ?? packageOf(site.specifier);
        if (target === undefined || allowed(target, site.file)) return [];
        return [`${site.file}:${site.line} imports '${site.specifier}'`];
      });
    expect(breaches).toEqual([]);
  });
});
