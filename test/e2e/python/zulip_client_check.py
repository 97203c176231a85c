#!/usr/bin/env python3
"""Drive the real, unmodified python-zulip-api (zulip.Client) against a running parley server.

Run by test/e2e/python-client.test.ts; also runnable by hand:
  PYTHONPATH=<python-zulip-api checkout>/zulip python3 test/e2e/python/zulip_client_check.py http://127.0.0.1:9991 <demo password>
Prints one line per check ("ok <name>" / "FAIL <name>: <detail>") and a final
"SUMMARY <passed> passed, <failed> failed"; exit status 0 only when everything passed.
Every network step is bounded in time (requests timeouts; call_on_each_message runs in a daemon thread).
"""
import json
import sys
import threading
import time
import uuid

import requests
import zulip

SITE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:9995"
PASSWORD = sys.argv[2] if len(sys.argv) > 2 else "secret"
HAMLET = "hamlet@zulip.com"
OTHELLO = "othello@zulip.com"
IAGO = "iago@zulip.com"
TAG = uuid.uuid4().hex[:10]

passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL {name}: {detail}", flush=True)
    return cond


def short(obj):
    text = json.dumps(obj, default=str)
    return text if len(text) < 600 else text[:600] + "..."


def bounded(fn, seconds, *args, **kwargs):
    """Runs fn in a daemon thread; returns its result, or a synthetic error dict after `seconds`."""
    box = {}

    def run():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001
            box["value"] = {"result": "client-exception", "msg": repr(e)}

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(seconds)
    return box.get("value", {"result": "timeout", "msg": f"no answer within {seconds} s"})


def api_key(email):
    # python-zulip-api has no password login; use the REST call zulip-terminal/zulip-js use.
    r = requests.post(f"{SITE}/api/v1/fetch_api_key", data={"username": email, "password": PASSWORD}, timeout=15)
    body = r.json()
    if body.get("result") != "success":
        raise SystemExit(f"fetch_api_key {email} failed: {r.status_code} {body}")
    return body["api_key"]


def main():
    hamlet_key = api_key(HAMLET)
    othello_key = api_key(OTHELLO)
    # Client() calls GET /server_settings and asserts zulip_version.
    client = zulip.Client(email=HAMLET, api_key=hamlet_key, site=SITE)
    other = zulip.Client(email=OTHELLO, api_key=othello_key, site=SITE)
    admin = zulip.Client(email=IAGO, api_key=api_key(IAGO), site=SITE)
    check("Client() constructed (server_settings zulip_version asserted)", True)

    s = client.get_server_settings()
    check("get_server_settings", s.get("result") == "success" and isinstance(s.get("zulip_version"), str)
          and isinstance(s.get("zulip_feature_level"), int), short(s))

    me = client.get_profile()
    check("get_profile", me.get("result") == "success" and me.get("email") == HAMLET
          and isinstance(me.get("user_id"), int) and me.get("full_name"), short(me))
    my_id = me.get("user_id")

    members = client.get_members()
    emails = [m.get("email") for m in members.get("members", [])]
    check("get_members", members.get("result") == "success" and HAMLET in emails and OTHELLO in emails, short(members))
    othello_id = next((m.get("user_id") for m in members.get("members", []) if m.get("email") == OTHELLO), None)

    streams = client.get_streams()
    names = [x.get("name") for x in streams.get("streams", [])]
    check("get_streams", streams.get("result") == "success" and "Verona" in names
          and all(isinstance(x.get("stream_id"), int) for x in streams.get("streams", [])), short(streams))

    subs = client.get_subscriptions()
    sub_names = [x.get("name") for x in subs.get("subscriptions", [])]
    check("get_subscriptions", subs.get("result") == "success" and "Verona" in sub_names, short(subs))

    sid = client.get_stream_id("Verona")
    check("get_stream_id", sid.get("result") == "success" and isinstance(sid.get("stream_id"), int), short(sid))

    topic = f"pyclient {TAG}"
    sent = client.send_message({"type": "stream", "to": "Verona", "subject": topic,
                                "content": f"stream message {TAG} **bold**"})
    check("send_message stream (subject)", sent.get("result") == "success" and isinstance(sent.get("id"), int), short(sent))
    stream_msg_id = sent.get("id")

    sent2 = client.send_message({"type": "stream", "to": "Verona", "topic": topic, "content": f"second {TAG}"})
    check("send_message stream (topic)", sent2.get("result") == "success", short(sent2))

    dm = client.send_message({"type": "private", "to": [OTHELLO], "content": f"direct message {TAG}"})
    check("send_message direct (list of emails)", dm.get("result") == "success" and isinstance(dm.get("id"), int), short(dm))

    dm2 = client.send_message({"type": "direct", "to": [othello_id], "content": f"direct by id {TAG}"})
    check("send_message direct (list of ids)", dm2.get("result") == "success", short(dm2))

    if stream_msg_id is not None:
        raw = client.get_raw_message(stream_msg_id)
        check("get_raw_message", raw.get("result") == "success"
              and raw.get("raw_content") == f"stream message {TAG} **bold**"
              and isinstance(raw.get("message"), dict) and raw["message"].get("id") == stream_msg_id
              and "<strong>bold</strong>" in raw["message"].get("content", ""), short(raw))

    rendered = client.render_message({"content": "**bold** text"})
    check("render_message", rendered.get("result") == "success"
          and "<strong>bold</strong>" in rendered.get("rendered", ""), short(rendered))

    # python's json.dumps uses ", " and ": " separators.
    got = client.get_messages({"anchor": "newest", "num_before": 50, "num_after": 0, "apply_markdown": False,
                               "narrow": [{"operator": "stream", "operand": "Verona"},
                                          {"operator": "topic", "operand": topic}]})
    contents = [m.get("content") for m in got.get("messages", [])]
    check("get_messages narrow stream+topic", got.get("result") == "success"
          and contents == [f"stream message {TAG} **bold**", f"second {TAG}"]
          and got.get("found_newest") is True, short(got))

    got_legacy = client.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0,
                                      "narrow": [["stream", "Verona"], ["topic", topic]]})
    check("get_messages legacy pair narrow", got_legacy.get("result") == "success"
          and len(got_legacy.get("messages", [])) == 2, short(got_legacy))

    # Zulip's dm operand: a list of user ids or a comma-separated email string (a list of emails is a 400 there too).
    for label, operand in (("ids", [othello_id]), ("email string", OTHELLO)):
        got_dm = client.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "apply_markdown": False,
                                      "narrow": [{"operator": "dm", "operand": operand}]})
        contents = [m.get("content") for m in got_dm.get("messages", [])]
        check(f"get_messages dm narrow ({label})", got_dm.get("result") == "success"
              and f"direct message {TAG}" in contents and f"direct by id {TAG}" in contents, short(got_dm))

    got_pm_with = client.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0,
                                       "narrow": [["pm-with", OTHELLO]]})
    check("get_messages legacy pm-with narrow", got_pm_with.get("result") == "success"
          and len(got_pm_with.get("messages", [])) >= 2, short(got_pm_with))

    # register / get_events / deregister
    if stream_msg_id is not None:
        # Issue 6 calls, as python-zulip-api sends them.
        flags = client.update_message_flags({"messages": [stream_msg_id], "op": "add", "flag": "starred"})
        check("update_message_flags starred", flags.get("result") == "success", short(flags))
        unread = client.update_message_flags({"messages": [stream_msg_id], "op": "remove", "flag": "read"})
        check("update_message_flags remove read", unread.get("result") == "success", short(unread))
        marked = client.mark_topic_as_read(client.get_stream_id("Verona")["stream_id"], topic)
        check("mark_topic_as_read", marked.get("result") == "success", short(marked))
        reacted = client.add_reaction({"message_id": stream_msg_id, "emoji_name": "joy", "emoji_code": "1f602",
                                       "reaction_type": "unicode_emoji"})
        check("add_reaction", reacted.get("result") == "success", short(reacted))
        again = client.add_reaction({"message_id": stream_msg_id, "emoji_name": "joy"})
        check("add_reaction twice -> REACTION_ALREADY_EXISTS", again.get("code") == "REACTION_ALREADY_EXISTS", short(again))
        edited = client.update_message({"message_id": stream_msg_id, "content": f"edited {TAG}"})
        check("update_message content", edited.get("result") == "success", short(edited))
        history = client.get_message_history(stream_msg_id)
        snapshots = history.get("message_history", [])
        check("get_message_history", history.get("result") == "success" and len(snapshots) == 2
              and snapshots[-1].get("content") == f"edited {TAG}", short(history))
        after = client.get_raw_message(stream_msg_id)
        m = after.get("message", {})
        check("message after edit: reactions, flags, edit_history",
              [r.get("emoji_name") for r in m.get("reactions", [])] == ["joy"] and "starred" in m.get("flags", [])
              and isinstance(m.get("edit_history"), list), short(after))
        removed = client.remove_reaction({"message_id": stream_msg_id, "emoji_name": "joy"})
        check("remove_reaction", removed.get("result") == "success", short(removed))
        all_read = client.mark_all_as_read()
        check("mark_all_as_read", all_read.get("result") == "success", short(all_read))
        doomed = client.send_message({"type": "stream", "to": "Verona", "topic": topic, "content": f"doomed {TAG}"})
        deleted = client.delete_message(doomed.get("id"))
        check("delete_message (own, within the limit)", deleted.get("result") == "success", short(deleted))
        gone = client.get_raw_message(doomed.get("id"))
        check("deleted message -> Invalid message(s)", gone.get("msg") == "Invalid message(s)", short(gone))
        theirs = other.send_message({"type": "stream", "to": "Verona", "topic": topic, "content": f"theirs {TAG}"})
        refused = client.delete_message(theirs.get("id"))
        check("delete_message of another user's message refused", refused.get("msg") == "You don't have permission to delete this message", short(refused))
        admin_delete = admin.delete_message(theirs.get("id"))
        check("delete_message by an administrator", admin_delete.get("result") == "success", short(admin_delete))

    # Uploads: upload_file (multipart, the file's path as the field name), the file served to the
    # uploader with HTTP Basic auth, get_attachments, the temporary URL of the API form.
    import io
    fp = io.BytesIO(f"uploaded {TAG}\n".encode())
    fp.name = f"notes-{TAG}.txt"
    up = client.upload_file(fp)
    check("upload_file", up.get("result") == "success" and str(up.get("uri", "")).startswith("/user_uploads/")
          and up.get("url") == up.get("uri") and up.get("filename") == fp.name, short(up))
    if up.get("result") == "success":
        served = requests.get(SITE + up["uri"], auth=(HAMLET, hamlet_key), timeout=15)
        check("uploaded file served to the uploader", served.status_code == 200 and served.text == f"uploaded {TAG}\n",
              f"{served.status_code} {served.text[:80]!r}")
        atts = client.get_attachments()
        check("get_attachments lists the upload", atts.get("result") == "success"
              and any("/user_uploads/" + a.get("path_id", "") == up["uri"] for a in atts.get("attachments", []))
              and isinstance(atts.get("upload_space_used"), int), short(atts))
        temp = client.call_endpoint(url=up["uri"][1:], method="GET")
        temp_ok = temp.get("result") == "success" and str(temp.get("url", "")).startswith("/user_uploads/temporary/")
        check("temporary URL of an upload", temp_ok, short(temp))
        if temp_ok:
            anon = requests.get(SITE + temp["url"], timeout=15)
            check("temporary URL served without credentials", anon.status_code == 200 and anon.text == f"uploaded {TAG}\n",
                  f"{anon.status_code}")

    reg = client.register(event_types=["message"])
    check("register", reg.get("result") == "success" and isinstance(reg.get("queue_id"), str)
          and isinstance(reg.get("last_event_id"), int), short(reg))
    if reg.get("result") == "success":
        qid = reg["queue_id"]
        other_sent = other.send_message({"type": "stream", "to": "Verona", "subject": topic,
                                         "content": f"from othello {TAG}"})
        ev = bounded(client.get_events, 15, queue_id=qid, last_event_id=reg["last_event_id"])
        msgs = [e for e in ev.get("events", []) if e.get("type") == "message"]
        check("get_events (message event from another user)", ev.get("result") == "success" and msgs
              and msgs[0]["message"].get("content", "").find(f"from othello {TAG}") >= 0
              and msgs[0]["message"].get("id") == other_sent.get("id")
              and isinstance(msgs[0].get("id"), int), short(ev))
        last = max([e["id"] for e in ev.get("events", []) if isinstance(e.get("id"), int)] + [reg["last_event_id"]])
        ev2 = bounded(client.get_events, 15, queue_id=qid, last_event_id=last, dont_block=True)
        check("get_events dont_block with nothing new", ev2.get("result") == "success"
              and [e for e in ev2.get("events", []) if e.get("type") != "heartbeat"] == [], short(ev2))
        dr = client.deregister(qid)
        check("deregister", dr.get("result") == "success", short(dr))
        gone = bounded(client.get_events, 15, queue_id=qid, last_event_id=last)
        check("get_events on a deleted queue -> BAD_EVENT_QUEUE_ID", gone.get("result") == "error"
              and gone.get("code") == "BAD_EVENT_QUEUE_ID", short(gone))

    # call_on_each_message in a daemon thread (it never returns); bounded wait.
    received = []
    arrived = threading.Event()
    marker = f"live {TAG}"

    def on_message(msg):
        received.append(msg)
        if marker in msg.get("content", ""):
            arrived.set()

    listener = zulip.Client(email=HAMLET, api_key=hamlet_key, site=SITE)
    threading.Thread(target=listener.call_on_each_message, args=(on_message,), daemon=True).start()
    # Give it time to register: poll until a queue exists by sending after a short delay, retrying.
    deadline = time.time() + 20
    sent_live = None
    while time.time() < deadline and not arrived.is_set():
        if sent_live is None:
            time.sleep(1.0)
            sent_live = other.send_message({"type": "stream", "to": "Verona", "subject": topic, "content": marker})
        arrived.wait(0.5)
    check("call_on_each_message receives a message from another user", arrived.is_set(),
          f"sent={short(sent_live)} received={short(received)}")

    print(f"SUMMARY {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    try:
        code = main()
    except SystemExit:
        raise
    except BaseException as e:  # report a crash as a failure with the traceback
        import traceback
        traceback.print_exc()
        print(f"FAIL crashed: {e!r}")
        print(f"SUMMARY {passed} passed, {failed + 1} failed", flush=True)
        code = 1
    sys.stdout.flush()
    # daemon threads may be blocked in a long-poll: exit without waiting for them
    import os
    os._exit(code)
