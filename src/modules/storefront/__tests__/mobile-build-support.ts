import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, type Response, type TestApp } from '../../../../test/helper.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';
import { consoleCall } from './support.ts';

/** A mobile build as the console answers it. */
export interface Build {
  id: string;
  operatorId: string;
  platform: string;
  submitToStores: boolean;
  requestedBy: string | null;
  status: string;
  error: string | null;
  buildUrl: string | null;
}

export /** A local stand-in for GitHub's REST API: records each request, answers what the test set. */
class FakeGitHub {
  readonly requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  answer: { status: number; headers?: Record<string, string>; body?: unknown; hang?: boolean } = {
    status: 204,
  };
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (this.answer.hang === true) {
        req.socket.destroy();
        return;
      }
      res.writeHead(this.answer.status, { 'content-type': 'application/json', ...this.answer.headers });
      res.end(this.answer.body === undefined ? '' : JSON.stringify(this.answer.body));
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The console route that starts an operator's mobile build. */
export const buildUrl = (operatorId: string) => `/api/console/operators/${operatorId}/mobile-build`;

/** POST the operator's mobile-build route as the tenant's owner. */
export function requestBuild(
  t: TestApp,
  tenant: TestTenant,
  operatorId: string,
  payload: Record<string, unknown>,
): Promise<Response> {
  return consoleCall(t, tenant, 'POST', buildUrl(operatorId), payload);
}

/** The dispatch token and repository the GitHub suite's app is configured with. */
export const DISPATCH = { token: 'ghp_dispatch_token_for_tests', repository: 'acme/white-label' };

/**
 * A test app that dispatches mobile builds to a local fake of GitHub's REST API, and a tenant: opened
 * before the describe's tests, closed after them.
 */
export function githubSuite(): {
  readonly t: TestApp;
  readonly tenant: TestTenant;
  readonly github: FakeGitHub;
} {
  const opened = suiteFixture(
    'githubSuite',
    async () => {
      const github = new FakeGitHub();
      const apiUrl = await github.start();
      const t = await buildTestApp({
        config: {
          publicUrl: 'https://api.example.test',
          mobileBuild: {
            dispatchToken: DISPATCH.token,
            repository: DISPATCH.repository,
            githubApiUrl: apiUrl,
          },
        },
      });
      return { t, tenant: await createTestTenant(t), github };
    },
    async ({ t, github }) => {
      await t.close();
      await github.close();
    },
  );
  return {
    get t() {
      return opened().t;
    },
    get tenant() {
      return opened().tenant;
    },
    get github() {
      return opened().github;
    },
  };
}
