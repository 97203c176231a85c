import t from 'tap';
import { render } from './zulip-support.js';
import { emojiToHexCodepoint } from '../../src/markdown/plugins/emoji.js';

const span = (code: string, name: string) =>
  `<span aria-label="${name.replaceAll('_', ' ')}" class="emoji emoji-${code}" role="img" title="${name.replaceAll('_', ' ')}">:${name}:</span>`;

t.test(':name: emoji', async (t) => {
  t.equal(render(':car:'), `<p>${span('1f697', 'car')}</p>`);
  t.equal(render('go :thumbs_up: now'), `<p>go ${span('1f44d', 'thumbs_up')} now</p>`, 'title uses spaces for underscores');
  t.equal(render(':+1:'), `<p>${span('1f44d', '+1')}</p>`, 'aliases keep the written name');
  t.equal(render('*:car:*'), `<p><em>${span('1f697', 'car')}</em></p>`, 'inside emphasis');
  t.equal(render(':car::car:'), `<p>${span('1f697', 'car')}${span('1f697', 'car')}</p>`, 'adjacent');
  t.equal(render(':no_such_emoji_here: and :car'), '<p>:no_such_emoji_here: and :car</p>', 'unknown names stay text');
  t.equal(render('`:car:`'), '<p><code>:car:</code></p>', 'not in code');
  t.equal(render(':car: ok', {}), `<p>${span('1f697', 'car')} ok</p>`);
});

t.test(':zulip: and realm emoji', async (t) => {
  t.equal(render(':zulip:'),
    '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>');
  const realmEmoji = {
    party_parrot: { id: '7', name: 'party_parrot', sourceUrl: '/user_avatars/2/emoji/images/7.gif', deactivated: false },
    retired_logo: { id: '8', name: 'retired_logo', sourceUrl: '/x.png', deactivated: true },
    car: { id: '9', name: 'car', sourceUrl: '/car.png', deactivated: false },
  };
  t.equal(render(':party_parrot:', { realmEmoji }),
    '<p><img alt=":party_parrot:" class="emoji" src="/user_avatars/2/emoji/images/7.gif" title="party parrot"></p>');
  t.equal(render(':retired_logo:', { realmEmoji }), '<p>:retired_logo:</p>', 'deactivated realm emoji are not rendered');
  t.equal(render(':car:', { realmEmoji }), '<p><img alt=":car:" class="emoji" src="/car.png" title="car"></p>',
    'a realm emoji shadows the Unicode emoji of the same name');
});

t.test('Unicode emoji characters', async (t) => {
  t.equal(render('I 🚗 to work'), `<p>I ${span('1f697', 'car')} to work</p>`);
  t.equal(render('🚗🚗'), `<p>${span('1f697', 'car')}${span('1f697', 'car')}</p>`);
  t.equal(render('❤️'), `<p>${span('2764', 'heart')}</p>`, 'VS16 is dropped from the codepoint');
  t.equal(render('👍🏽'), '<p>👍🏽</p>', 'a modifier sequence Zulip has no name for stays as typed (not split)');
  t.equal(render('a ↔ b 1 # 2'), '<p>a ↔ b 1 # 2</p>', 'text-presentation characters and digits are left alone');
  t.equal(render('🇫🇷'), `<p>${span('1f1eb-1f1f7', 'flag_france')}</p>`, 'flags (regional indicator pairs)');
  t.equal(render('🚗\u200d🟪'), '<p>🚗\u200d🟪</p>', 'an unknown ZWJ sequence stays as typed');
  t.equal(render('`🚗`'), '<p><code>🚗</code></p>', 'not in code');
  t.equal(emojiToHexCodepoint('#\ufe0f\u20e3'), '0023-20e3');
});

t.test('emoji do not render inside links or HTML attributes', async (t) => {
  t.equal(render('[:car:](https://example.com)'), '<p><a href="https://example.com">:car:</a></p>');
  t.equal(render('https://example.com/x:car:y'), '<p><a href="https://example.com/x:car:y">https://example.com/x:car:y</a></p>');
});
