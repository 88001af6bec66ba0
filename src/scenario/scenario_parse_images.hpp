// The scenario parser's images (docs/scenarios.md "[[image]]"): [[image]] tables, the image
// transfer steps, an image barrier's keys and the layout each image is in at each step.
// Private to the scenario parser (scenario_parse.cpp, scenario_parse_steps.cpp).
#pragma once

#include "scenario/scenario.hpp"
#include "scenario/toml_reader.hpp"

namespace repro::scenario::parse {

// One [[image]] table (keys name, width, height, format, tiling, layout, memory, init, value,
// words, check, sharing, ownership_transfers): its image keys checked and read; the caller
// then reads the keys it shares with a buffer (scenario_parse_steps.hpp parseBuffer with bytes
// = width * height * 4) and finishImage sets `image` and `checked` in that BufferSpec.
ImageSpec parseImageKeys(const Parser& p, const toml::table& t);
void finishImage(const Parser& p, const toml::table& t, const ImageSpec& i, BufferSpec& b);

// A copy_buffer_to_image, copy_image_to_buffer, copy_image or clear_image step: the
// regions inside each image and buffer (a copy or clear past an extent is a bad file).
Step parseImageTransfer(const Parser& p, const toml::table& t, const Scenario& s);

// An image barrier's own keys into `b` (kind Image): `image` (an image's name), old_layout
// and new_layout (new_layout not undefined).
void parseImageBarrierKeys(const Parser& p, const toml::table& t, const Scenario& s, Barrier& b);

// `name` must be a buffer of `s`, not an image: one line at `where` otherwise.
const BufferSpec& requireBuffer(const Parser& p, const toml::node& where, std::string_view key, const std::string& name,
                                const Scenario& s);

// The layouts in step order (docs/scenarios.md "Layouts"): each image starts in its `layout`;
// a dispatch binds it in general; copy_buffer_to_image and clear_image write it in
// transfer-dst or general; copy_image_to_buffer reads it in transfer-src or general,
// copy_image both; an image barrier's old_layout is the image's layout or undefined, which
// discards its contents: a step that reads them before a write is a bad file unless that
// barrier is a control. An image barrier with a transition is recorded in every mode (no
// `modes`). One line with the step's line:column for the first step that breaks a rule.
// The one walk of the layouts through the steps: sets each Step::layouts and each image's
// finalLayout, which the recorders and ownershipTransfers read instead of walking again.
void checkImageLayouts(const Parser& p, Scenario& s);

}  // namespace repro::scenario::parse
