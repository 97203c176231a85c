import t from 'tap';
import { render } from './zulip-support.js';

const span = (code: string, name: string) =>
  `<span aria-label="${name.replaceAll('_', ' ')}" class="emoji emoji-${code}" role="img" title="${name.replaceAll('_', ' ')}">:${name}:</span>`;
const on = { translateEmoticons: true };

t.test('emoticons are translated only for senders who enabled it', async (t) => {
  t.equal(render('hi ;)'), '<p>hi ;)</p>');
  t.equal(render('hi ;)', on), `<p>hi ${span('1f609', 'wink')}</p>`);
});

t.test('every conversion', async (t) => {
  const cases: [string, string, string][] = [
    [':)', '1f642', 'smile'], ['(:', '1f642', 'smile'], [':(', '1f641', 'frown'], ['<3', '2764', 'heart'],
    [':|', '1f610', 'neutral'], [':/', '1f615', 'confused'], [';)', '1f609', 'wink'], [':D', '1f600', 'grinning'],
    [':o', '1f62e', 'open_mouth'], [':O', '1f62e', 'open_mouth'], [':p', '1f61b', 'stuck_out_tongue'],
    [':P', '1f61b', 'stuck_out_tongue'],
  ];
  for (const [emoticon, code, name] of cases) t.equal(render(`x ${emoticon} y`, on), `<p>x ${span(code, name)} y</p>`, emoticon);
});

t.test('boundaries', async (t) => {
  t.equal(render('a;) (:b', on), '<p>a;) (:b</p>', 'glued to words: not translated');
  t.equal(render('(;))', on), '<p>(' + span('1f609', 'wink') + ')</p>', 'between brackets');
  t.equal(render('ok, :D!', on), `<p>ok, ${span('1f600', 'grinning')}!</p>`);
  t.equal(render(':D\n:D', on), `<p>${span('1f600', 'grinning')}<br>\n${span('1f600', 'grinning')}</p>`);
  t.equal(render('`:D` and    \n\n    :D', on), '<p><code>:D</code> and    </p>\n<div class="codehilite"><pre><span></span><code>:D\n</code></pre></div>', 'not in code');
  t.equal(render('see https://example.com/:D', on), '<p>see <a href="https://example.com/:D">https://example.com/:D</a></p>', 'not in URLs');
});
