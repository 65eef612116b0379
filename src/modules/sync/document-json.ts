import * as Y from 'yjs';

/**
 * A document's root types as JSON. A root type read from an update has no declared type, so its kind is
 * told from its content: keys make a map; a sequence of strings (or formatting) a text; XML elements or
 * text nodes an XML fragment; anything else an array.
 */
export function documentJson(doc: Y.Doc): Record<string, unknown> {
  // Own properties (fromEntries): a root a client named `__proto__` is a root like any other.
  return Object.fromEntries(
    [...doc.share.keys()].sort().flatMap((name) => {
      const root = doc.share.get(name);
      return root === undefined ? [] : [[name, rootJson(doc, name, root)]];
    }),
  );
}

type RootType = NonNullable<ReturnType<Y.Doc['share']['get']>>;

function rootJson(doc: Y.Doc, name: string, root: RootType): unknown {
  if (root instanceof Y.Map || root instanceof Y.Array || root instanceof Y.Text) return root.toJSON();
  if (root instanceof Y.XmlFragment) return root.toString();
  if (root._map.size > 0) return doc.getMap(name).toJSON();
  let item = root._start;
  while (item?.deleted) item = item.right;
  if (item === null) return doc.getMap(name).toJSON();
  const content = item.content;
  if (
    content instanceof Y.ContentString ||
    content instanceof Y.ContentFormat ||
    content instanceof Y.ContentEmbed
  ) {
    return doc.getText(name).toJSON();
  }
  if (content instanceof Y.ContentType) {
    const inner = content.type;
    if (inner instanceof Y.XmlElement || inner instanceof Y.XmlText)
      return doc.getXmlFragment(name).toString();
  }
  return doc.getArray(name).toJSON();
}
