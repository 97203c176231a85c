/**
 * Parameter decoding (Zulip's zerver/lib/typed_endpoint.py `typed_endpoint`): lookup order,
 * aliases, required/default, and the
 * exact error texts of both dialects.
 */
import t from 'tap';
import Type from 'typebox';
import { P, decodeParams, type Dialect, type ParamSpecs } from '../../src/api/params.js';
import { ZulipError } from '../../src/errors.js';

type Pairs = [string, string][];

const decode = (specs: ParamSpecs, body: Pairs, query: Pairs = [], dialect: Dialect = 'req') => {
  const consumed = new Set<string>();
  const params = decodeParams(specs, body, query, dialect, consumed);
  return { params, consumed: [...consumed].sort() };
};

/** The error body a decode throws (fails the test if it doesn't throw a ZulipError). */
const errorOf = (specs: ParamSpecs, body: Pairs, dialect: Dialect = 'req', query: Pairs = []) => {
  try {
    decodeParams(specs, body, query, dialect, new Set());
  } catch (e) {
    if (e instanceof ZulipError) return { status: e.status, ...e.toBody() } as { status: number; msg: string } & Record<string, unknown>;
    throw e;
  }
  throw new Error('expected a ZulipError');
};

const bad = (msg: string) => ({ status: 400, result: 'error', msg, code: 'BAD_REQUEST' });

t.test('plain strings are verbatim; body wins over query; last repeat wins', async (t) => {
  const specs = { content: P.string(), to: P.string(), topic: P.string() };
  const { params, consumed } = decode(
    specs,
    [['content', '"quoted" **x**'], ['to', 'general'], ['to', 'second']],
    [['content', 'from-query'], ['topic', 'q-topic'], ['extra', '1']],
  );
  t.strictSame(params, { content: '"quoted" **x**', to: 'second', topic: 'q-topic' });
  t.strictSame(consumed, ['client', 'content', 'to', 'topic'], 'found names + client, not extras');
});

t.test('required, default, optional', async (t) => {
  const specs = {
    a: P.string({ required: true }),
    b: P.bool({ default: true }),
    c: P.int(),
    d: P.json(Type.Array(Type.Integer()), { default: [] }),
  };
  t.strictSame(decode(specs, [['a', 'x']]).params, { a: 'x', b: true, c: undefined, d: [] });
  t.strictSame(decode(specs, [['a', ''], ['b', 'false'], ['c', '-7'], ['d', '[1, 2]']]).params, {
    a: '',
    b: false,
    c: -7,
    d: [1, 2],
  });
  t.strictSame(errorOf(specs, []), {
    status: 400,
    result: 'error',
    msg: "Missing 'a' argument",
    code: 'REQUEST_VARIABLE_MISSING',
    var_name: 'a',
  });
});

t.test('aliases: either name, both → REQUEST_CONFUSING_VAR', async (t) => {
  const specs = { topic: P.string({ aliases: ['subject'] }) };
  t.strictSame(decode(specs, [['subject', 'via alias']]), { params: { topic: 'via alias' }, consumed: ['client', 'subject'] });
  t.strictSame(decode(specs, [['topic', 'direct']]).params, { topic: 'direct' });
  const confusing = {
    status: 400,
    result: 'error',
    msg: "Can't decide between 'topic' and 'subject' arguments",
    code: 'REQUEST_CONFUSING_VAR',
    var_name1: 'topic',
    var_name2: 'subject',
  };
  t.strictSame(errorOf(specs, [['topic', 'a'], ['subject', 'b']]), confusing);
  t.strictSame(errorOf(specs, [['subject', 'b']], 'req', [['topic', 'a']]), confusing, 'body and query mixed');
  const required = { topic: P.string({ required: true, aliases: ['subject'] }) };
  t.strictSame(errorOf(required, []).msg, "Missing 'topic' argument");
});

t.test('jsonOrString: JSON when it parses, else the raw string', async (t) => {
  const specs = { to: P.jsonOrString() };
  t.strictSame(decode(specs, [['to', 'general']]).params, { to: 'general' });
  t.strictSame(decode(specs, [['to', '["bob@example.com"]']]).params, { to: ['bob@example.com'] });
  t.strictSame(decode(specs, [['to', '9']]).params, { to: 9 });
  t.strictSame(decode(specs, [['to', 'a@x,b@y']]).params, { to: 'a@x,b@y' });
  t.strictSame(decode(specs, [['to', 'null']]).params, { to: null });
});

t.test('client is always consumed silently', async (t) => {
  t.strictSame(decode({}, [['client', 'website']]).consumed, ['client']);
  t.strictSame(decode({}, []).consumed, ['client']);
});

t.test('req dialect error texts', async (t) => {
  const narrow = Type.Array(Type.Object({ operator: Type.String(), operand: Type.String() }));
  const cases: [ParamSpecs, Pairs, string][] = [
    [{ x: P.bool() }, [['x', 'yes']], 'Argument "x" is not valid JSON.'],
    [{ x: P.bool() }, [['x', '1']], 'x is not a boolean'],
    [{ x: P.bool() }, [['x', '"true"']], 'x is not a boolean'],
    [{ x: P.int() }, [['x', '1.5']], 'x is not an integer'],
    [{ x: P.int() }, [['x', '']], 'Argument "x" is not valid JSON.'],
    [{ x: P.json(Type.Array(Type.Integer())) }, [['x', '{}']], 'x is not a list'],
    [{ x: P.json(Type.Array(Type.Integer())) }, [['x', '[1, "a"]']], 'x[1] is not an integer'],
    [{ x: P.json(Type.Object({})) }, [['x', '[]']], 'x is not a dict'],
    [{ x: P.json(Type.String()) }, [['x', '5']], 'x is not a string'],
    [{ narrow: P.json(narrow) }, [['narrow', '[{"operator": 5, "operand": "a"}]']], 'narrow[0]["operator"] is not a string'],
    [{ narrow: P.json(narrow) }, [['narrow', '[{"operator": "is"}]']], 'operand key is missing from narrow[0]'],
    [{ x: P.json(Type.Number()) }, [['x', '"a"']], 'x is not a float'],
    [{ x: P.json(Type.Integer({ minimum: 0 })) }, [['x', '-1']], 'x is too small'],
    [{ x: P.json(Type.Integer({ maximum: 10 })) }, [['x', '11']], 'x is too large'],
    [{ x: P.json(Type.String({ maxLength: 3 })) }, [['x', '"abcd"']], 'x is too long (limit: 3 characters)'],
    [{ x: P.json(Type.String({ minLength: 1 })) }, [['x', '""']], 'x cannot be blank.'],
    [{ x: P.json(Type.Union([Type.Literal('a'), Type.Literal('b')])) }, [['x', '"c"']], 'Invalid x'],
    [{ x: P.json(Type.Union([Type.Integer(), Type.String()])) }, [['x', 'true']], 'x is not an allowed_type'],
    [
      { x: P.json(Type.Object({ a: Type.Integer() }, { additionalProperties: false })) },
      [['x', '{"a": 1, "b": 2, "c": 3}']],
      'Unexpected arguments: b, c',
    ],
  ];
  for (const [specs, body, msg] of cases) t.strictSame(errorOf(specs, body, 'req'), bad(msg), `${JSON.stringify(body)} → ${msg}`);
});

t.test('typed dialect error texts', async (t) => {
  const cases: [ParamSpecs, Pairs, string][] = [
    [{ x: P.bool() }, [['x', 'yes']], 'x is not valid JSON'],
    [{ x: P.bool() }, [['x', '0']], 'x is not a boolean'],
    [{ x: P.int() }, [['x', '"3"']], 'x is not an integer'],
    [{ x: P.json(Type.Array(Type.String())) }, [['x', '"a"']], 'x is not a list'],
    [{ x: P.json(Type.Array(Type.String())) }, [['x', '["a", 1]']], 'x[1] is not a string'],
    [{ x: P.json(Type.Object({ k: Type.Boolean() })) }, [['x', '1']], 'x is not a dict'],
    [{ x: P.json(Type.Array(Type.Object({ k: Type.Boolean() }))) }, [['x', '[{"k": 1}]']], 'x[0]["k"] is not a boolean'],
    [{ x: P.json(Type.Object({ k: Type.Boolean() })) }, [['x', '{}']], 'x["k"] field is missing'],
    [
      { x: P.json(Type.Object({ a: Type.Integer() }, { additionalProperties: false })) },
      [['x', '{"a": 1, "zz": 2}']],
      'Argument "zz" at x is unexpected',
    ],
    [{ x: P.json(Type.String({ minLength: 1 })) }, [['x', '""']], 'x cannot be blank'],
    [{ x: P.json(Type.String({ minLength: 2 })) }, [['x', '"a"']], 'x is too short.'],
    [{ x: P.json(Type.Union([Type.Literal(1), Type.Literal(2)])) }, [['x', '3']], 'Invalid x'],
    [{ x: P.json(Type.Union([Type.Array(Type.Integer()), Type.Null()])) }, [['x', '[1, "a"]']], 'x[1] is not an integer'],
  ];
  for (const [specs, body, msg] of cases) t.strictSame(errorOf(specs, body, 'typed'), bad(msg), `${JSON.stringify(body)} → ${msg}`);
});

t.test('error names use the declared name even when the alias carried the value', async (t) => {
  const specs = { flag: P.json(Type.Boolean(), { aliases: ['old_flag'] }) };
  t.strictSame(errorOf(specs, [['old_flag', 'nope']]).msg, 'Argument "flag" is not valid JSON.');
});

t.test('a nullable list accepts JSON null (zulip-js event_types=null)', async (t) => {
  const specs = { event_types: P.json(Type.Union([Type.Array(Type.String()), Type.Null()])) };
  t.strictSame(decode(specs, [['event_types', 'null']]).params, { event_types: null });
  t.strictSame(decode(specs, [['event_types', '["message"]']]).params, { event_types: ['message'] });
});

t.test('specs are frozen and compiled once', async (t) => {
  const spec = P.json(Type.Array(Type.Integer()));
  t.ok(Object.isFrozen(spec));
  t.ok(spec.validator, 'validator compiled at definition time');
  t.equal(spec.required, false);
  t.equal(P.int({ required: true }).required, true);
});
