import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as Y from 'yjs';
import { call } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { documentData, documentEvents, getDocument, putUpdate, textUpdate } from './rest.ts';
import { syncSuite } from './suites.ts';
import { synced } from './support.ts';

/** The document over REST and `/v1/actions`, beside the live clients of the same document. */

const s = syncSuite();
const auth = () => ({ authorization: `Bearer ${s.tenant.apiKey}` });
const binary = (query: string) =>
  call(s.t.app, { method: 'GET', url: `/v1/rooms/${s.tenant.roomId}/ydoc-binary${query}`, headers: auth() });

describe('REST', () => {
  test('reads equal what clients see; a PUT reaches live clients; a malformed PUT is a 422 that changes nothing', async () => {
    const a = s.open(`${s.tenant.roomId}/rest`, await s.token());
    await synced(a);
    a.doc.getText('title').insert(0, 'Hello');
    a.doc.getMap('meta').set('n', 1);
    a.doc.getArray('items').push(['x', 'y']);
    a.doc.getXmlFragment('prose').insert(0, [new Y.XmlElement('p')]);
    const json = () => documentData(s.t, s.tenant, 'rest');
    await eventually(
      'the stored document to hold the edits',
      async () => (await json()).title === 'Hello' && (await json()).prose !== undefined,
    );
    assert.deepEqual(await json(), { items: ['x', 'y'], meta: { n: 1 }, prose: '<p></p>', title: 'Hello' });

    const whole = await binary('?docName=rest');
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['content-type'], 'application/octet-stream');
    const copy = new Y.Doc();
    Y.applyUpdate(copy, whole.rawPayload);
    assert.equal(copy.getText('title').toString(), 'Hello');
    const vector = Buffer.from(Y.encodeStateVector(copy)).toString('base64');
    const diff = await binary(`?docName=rest&stateVector=${encodeURIComponent(vector)}`);
    assert.ok(
      diff.rawPayload.length < whole.rawPayload.length,
      'a state vector that has everything gets an empty diff',
    );

    const writer = new Y.Doc();
    Y.applyUpdate(writer, whole.rawPayload);
    const before = Y.encodeStateVector(writer);
    writer.getText('title').insert(5, ', world');
    const put = await putUpdate(
      s.t,
      s.tenant,
      '?docName=rest',
      Buffer.from(Y.encodeStateAsUpdate(writer, before)),
    );
    assert.equal(put.statusCode, 200, put.body);
    await eventually(
      'the live client to receive the PUT',
      () => a.doc.getText('title').toString() === 'Hello, world',
    );

    const bad = await putUpdate(s.t, s.tenant, '?docName=rest', Buffer.from([1, 2, 3, 4, 5, 250, 251]));
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal(bad.json<{ error: string }>().error, 'unprocessable_content');
    assert.equal((await json()).title, 'Hello, world');
  });

  test('errors: unknown room 404, bad state vector 400, JSON body 415', async () => {
    const missing = await getDocument(s.t, s.tenant.apiKey, 'no-such-room');
    assert.equal(missing.statusCode, 404);
    const badVector = await binary('?stateVector=%2F%2F%2F%2F%2Fw%3D%3D');
    assert.equal(badVector.statusCode, 400, badVector.body);
    const json = await call(s.t.app, {
      method: 'PUT',
      url: `/v1/rooms/${s.tenant.roomId}/ydoc-binary`,
      headers: auth(),
      payload: { update: 'x' },
    });
    assert.equal(json.statusCode, 415, json.body);
    // The body is the verb's to check, but the query is still validated by the route's schema.
    const badName = await putUpdate(
      s.t,
      s.tenant,
      `?docName=${encodeURIComponent('no spaces')}`,
      textUpdate('x'),
    );
    assert.equal(badName.statusCode, 400, badName.body);
  });

  test('actions: get_document and apply_document_update', async () => {
    const writer = new Y.Doc();
    writer.getMap('m').set('by', 'agent');
    const action = (name: string, args: Record<string, unknown>) =>
      call(s.t.app, {
        method: 'POST',
        url: `/v1/actions/${name}`,
        headers: auth(),
        payload: { arguments: { roomId: s.tenant.roomId, docName: 'agent', ...args } },
      });
    const update = Buffer.from(Y.encodeStateAsUpdate(writer)).toString('base64');
    const applied = await action('apply_document_update', { update });
    assert.equal(applied.statusCode, 200, applied.body);
    const read = await action('get_document', {});
    assert.deepEqual(read.json<{ result: { data: unknown } }>().result.data, { m: { by: 'agent' } });
  });

  test('sync.document.updated: one event per document per throttle window', async () => {
    const a = s.open(`${s.tenant.roomId}/events`, await s.token());
    await synced(a);
    for (let i = 0; i < 20; i++) a.doc.getText('t').insert(0, 'x');
    await eventually('the edits to be stored', async () => {
      const t = (await documentData(s.t, s.tenant, 'events')).t;
      return typeof t === 'string' && t.length === 20;
    });
    const ofDoc = (await documentEvents(s.t, s.tenant)).filter((e) => e.docName === 'events');
    assert.equal(ofDoc.length, 1, 'twenty edits within the default 5 s window make one event');
  });
});
