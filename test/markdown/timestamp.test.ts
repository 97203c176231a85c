import t from 'tap';
import { render } from './zulip-support.js';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';
import { parseTimestamp } from '../../src/markdown/plugins/timestamp.js';

const NOW = new Date(Date.UTC(2026, 10, 21, 6, 0, 0));

t.test('<time:…> renders a <time> element with the UTC instant', async (t) => {
  t.equal(render('at <time:2024-03-01T15:45:00+01:00>!'),
    '<p>at <time datetime="2024-03-01T14:45:00Z">2024-03-01T15:45:00+01:00</time>!</p>');
  t.equal(render('<time:1700000000>'), '<p><time datetime="2023-11-14T22:13:20Z">1700000000</time></p>', 'UNIX seconds');
  t.equal(render('**<time:2024-01-02>**'), '<p><strong><time datetime="2024-01-02T00:00:00Z">2024-01-02</time></strong></p>');
});

t.test('invalid times render Zulip\'s timestamp-error span, escaped', async (t) => {
  t.equal(render('<time:soon>'), '<p><span class="timestamp-error">Invalid time format: soon</span></p>');
  t.equal(render('<time:<b>x>'), '<p><span class="timestamp-error">Invalid time format: &lt;b</span>x&gt;</p>');
  t.equal(render('<time:99999999999999>'), '<p><span class="timestamp-error">Invalid time format: 99999999999999</span></p>',
    'beyond year 9999');
  t.equal(render('<time:>'), '<p><span class="timestamp-error">Invalid time format: </span></p>');
});

t.test('parseTimestamp: dateutil-style inputs', async (t) => {
  const cases: [string, string | null][] = [
    ['2024-03-01T15:45:00Z', '2024-03-01T15:45:00Z'],
    ['2024-03-01T15:45:00.25-05:30', '2024-03-01T21:15:00.250000Z'],
    ['2024-03-01 15:45', '2024-03-01T15:45:00Z'],
    ['Mar 1st 2024, 3:45PM', '2024-03-01T15:45:00Z'],
    ['1 March 2024 12:00 am', '2024-03-01T00:00:00Z'],
    ['Friday, March 1, 2024 12:30 PM', '2024-03-01T12:30:00Z'],
    ['1 Mar 2024 9:00 PST', '2024-03-01T17:00:00Z'],
    ['1 Mar 2024 9:00 +0200', '2024-03-01T07:00:00Z'],
    ['03/01/2024', '2024-03-01T00:00:00Z'],
    ['25/12/2024', '2024-12-25T00:00:00Z'],
    ['20240301', '2024-03-01T00:00:00Z'],
    ['10:30', '2026-11-21T10:30:00Z'],
    ['Dec 24', '2026-12-24T00:00:00Z'],
    ['1700000000.5', '2023-11-14T22:13:20.500000Z'],
    ['0', '1970-01-01T00:00:00Z'],
    ['Feb 30 2024', null],
    ['25:00', null],
    ['next tuesday-ish', null],
    ['nan', null],
    ['inf', null],
    ['1e300', null],
  ];
  for (const [input, expected] of cases) t.equal(parseTimestamp(input, NOW), expected, input);
});

t.test('fields a <time:…> leaves out come from the render context\'s clock, not the wall clock', async (t) => {
  const at = (nowSeconds: number) => render('<time:10:30>', { nowSeconds });
  t.equal(at(Date.UTC(2001, 1, 3, 4, 5, 6) / 1000), '<p><time datetime="2001-02-03T10:30:00Z">10:30</time></p>');
  t.equal(at(Date.UTC(2030, 6, 9) / 1000), '<p><time datetime="2030-07-09T10:30:00Z">10:30</time></p>');
  t.equal(render('<time:Dec 24>', { nowSeconds: Date.UTC(1999, 0, 1) / 1000 }),
    '<p><time datetime="1999-12-24T00:00:00Z">Dec 24</time></p>', 'the year too');
});

t.test('without a realm context (a plain render) <time:…> stays literal text', async (t) => {
  t.equal(zulipRenderer.render('<time:2024-01-02>'), '<p>&lt;time:2024-01-02&gt;</p>');
});
