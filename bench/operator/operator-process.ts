import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The operators the benches run: each an app with a chart of the same name. */
export type OperatorApp = 'backup-operator' | 'groupware-operator';

/** An operator deployable, built from the same sources as the bench. */
export function operatorEntry(app: OperatorApp = 'backup-operator'): string {
  return fileURLToPath(new URL(`../../apps/${app}/main.js`, import.meta.url));
}

/**
 * The node flags of the chart's container command (`command: [node, <flags>, <entry>]`), so
 * the bench runs the operator with the flags it is deployed with.
 */
export function deployedNodeFlags(app: OperatorApp = 'backup-operator'): string[] {
  const deployment = new URL(
    `../../../../charts/${app}/templates/deployment.yaml`,
    import.meta.url,
  );
  const deployedEntry = `dist/apps/${app}/main.js`;
  const template = readFileSync(deployment, 'utf8');
  const line = /^\s*command: (\[.*\])\s*$/m.exec(template)?.[1];
  const command = line ? (parse(line) as string[]) : [];
  if (command[0] !== 'node' || command.at(-1) !== deployedEntry) {
    throw new Error(`the chart's command is not "node [flags] ${deployedEntry}": ${line}`);
  }
  return command.slice(1, -1);
}

/** Peak and current resident memory of a process in MiB, from /proc (Linux). */
export function residentMemory(pid: number): { peakMiB: number; currentMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peakMiB: kib('VmHWM') / 1024, currentMiB: kib('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process used so far, from /proc; 0 where unavailable. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * The operator as production runs it (the chart's `node <flags> dist/apps/<app>/main.js`,
 * configured through the environment, KUBECONFIG naming the cluster, no SECRET_KEY), so its
 * memory is its own. `extraNodeArgs` come after the chart's flags, for experiments.
 */
export class OperatorProcess {
  private output: string[] = [];

  private constructor(private readonly child: ChildProcess) {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      this.output.push(line);
      if (this.output.length > 200) this.output.shift();
    });
  }

  static start(
    env: Record<string, string>,
    extraNodeArgs: string[] = [],
    app: OperatorApp = 'backup-operator',
  ): OperatorProcess {
    const args = [...deployedNodeFlags(app), ...extraNodeArgs, operatorEntry(app)];
    const { SECRET_KEY: _unused, ...inherited } = process.env;
    const child = spawn(process.execPath, args, {
      env: { ...inherited, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new OperatorProcess(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Its last log lines, for a run that went wrong. */
  recentOutput(): string {
    return this.output.join('\n');
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited) return resolve();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.kill('SIGTERM');
    });
  }
}
