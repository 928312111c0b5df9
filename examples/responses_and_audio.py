"""The Responses API (plain and streamed) and text-to-speech saved to a file, as with ``openai``.

export HOLYSHEEP_API_KEY=...            # your HolySheep key
python examples/responses_and_audio.py
"""

from pathlib import Path

from holyclient import OpenAI

client = OpenAI()

response = client.responses.create(model="gpt-4o-mini", input="Say hello in five words.")
print(response.output_text)

with client.responses.create(model="gpt-4o-mini", input="Stream a short greeting.", stream=True) as stream:
    for event in stream:
        if event.type == "response.output_text.delta":
            print(event.delta, end="", flush=True)
print()

speech_file = Path("hello.mp3")
with client.audio.speech.with_streaming_response.create(
    model="tts-1", voice="alloy", input="Hello!"
) as audio:
    audio.stream_to_file(speech_file)
print(f"{speech_file}: {speech_file.stat().st_size} bytes")
print(client.usage.snapshot())
