//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Frequently used passwords from public breach lists (lower-cased; matched case-insensitively).
enum CommonPasswords {
    static let set: Set<String> = [
        "!qaz2wsx", "000000", "010101", "012345", "0123456789", "101010", "1111", "111111",
        "11111111", "112233", "11223344", "1122334455", "121212", "123123", "123123123", "123321",
        "1234", "12341234", "12345", "123456", "1234567", "12345678", "123456789", "1234567890",
        "123456789a", "12345678a", "1234567a", "123456a", "123456q", "1234qwer", "123654", "123abc",
        "123qwe", "12qwaszx", "131313", "147258", "147258369", "159357", "159753", "1a2b3c",
        "1a2b3c4d", "1q2w3e", "1q2w3e4r", "1q2w3e4r5t", "1qaz2wsx", "1qazxsw2", "2000", "202020",
        "222222", "321321", "333333", "444444", "456456", "5201314", "520520", "555555",
        "654321", "666666", "696969", "777777", "7777777", "789789", "888888", "987654",
        "987654321", "9876543210", "999999", "a123456", "a1b2c3", "a1b2c3d4", "aa123456", "aaaaaa",
        "abc123", "abc12345", "abcd1234", "abcdef", "abcdefg", "abcdefgh", "access", "admin",
        "admin123", "administrator", "amanda", "andrew", "andrew1", "angel", "angels", "apple",
        "april", "arsenal", "asd123", "asdf", "asdf1234", "asdfasdf", "asdfgh", "asdfghjkl",
        "ashley", "ashley1", "audi", "august", "austin", "autumn", "avengers", "azerty",
        "baby", "babyboy", "babygirl", "banana", "barcelona", "bart", "baseball", "baseball1",
        "basketball", "batman", "batman1", "beach", "biteme", "blackhawks", "blessed", "bmw",
        "broncos", "brother", "bugs", "buster", "butter", "butterfly", "changeme", "charlie",
        "charlie1", "cheese", "chelsea", "chelsea1", "chocolate", "christ", "coffee", "computer",
        "cookie", "corvette", "cowboy", "cowboys", "daddy", "daffy", "dallas", "daniel",
        "daniel1", "december", "default", "demo", "diamond", "dolphin", "donald", "dragon",
        "dragon1", "eagle", "eagles1", "facebook", "falcon", "family", "father", "february",
        "ferrari", "fishing", "flower", "flyers", "football", "football1", "forever", "freedom",
        "friday", "friend", "friends", "frodo", "gandalf", "garfield", "george", "george1",
        "giants", "ginger", "gmail", "goku", "golden", "golf", "google", "guest",
        "guitar", "harley", "harley1", "heaven", "hello", "hello1", "hello123", "hobbit",
        "hockey", "hockey1", "holiday", "homer", "honda", "hotmail", "hulk", "hunter",
        "hunter2", "hunting", "ilovegod", "iloveu", "iloveyou", "iloveyou1", "iloveyou2", "internet",
        "ironman", "january", "jennifer", "jessica", "jessica1", "jesus", "jordan", "jordan1",
        "jordan23", "joshua", "joshua1", "july", "june", "killer", "killer1", "kitten",
        "klaster", "lakers", "letmein", "letmein1", "linkedin", "linux", "lion", "liverpool",
        "lkjhgfdsa", "login", "love", "lovely", "loveme", "luigi", "maggie", "manchester",
        "march", "mario", "marvel", "master", "master1", "matrix", "matrix1", "matthew",
        "matthew1", "maverick", "mercedes", "merlin", "michael", "michael1", "michelle", "michelle1",
        "mickey", "microsoft", "midnight", "minecraft", "minnie", "mnbvcxz", "mobilemail", "mom",
        "mommy", "monday", "monitor", "monitoring", "monkey", "monkey1", "montana", "moon",
        "moscow", "mother", "music", "mustang", "mustang1", "naruto", "neo", "nicole",
        "nicole1", "ninja", "nissan", "november", "ocean", "october", "onepiece", "orange",
        "outlook", "p@ssw0rd", "p@ssword", "packers", "panther", "pass", "passw0rd", "passw0rd1",
        "password", "password1", "password12", "password123", "patriots", "peanut", "pepper", "phoenix",
        "pirate", "pluto", "poiuytrewq", "pokemon", "popeye", "porsche", "princess", "princess1",
        "pumpkin", "puppy", "q1w2e3r4", "q1w2e3r4t5", "qazwsx", "qq123456", "qwe123", "qweasd",
        "qweasdzxc", "qwer1234", "qwerty", "qwerty1", "qwerty123", "qwertyuiop", "qwertz", "raiders",
        "rainbow", "ranger", "rangers", "realmadrid", "redsox", "robert", "robert1", "rockstar",
        "rockyou", "root", "runner", "running", "samsung", "scooby", "secret", "secret123",
        "september", "server", "shadow", "shadow1", "silver", "simpsons", "sister", "snoopy",
        "soccer", "soccer1", "spider", "spiderman", "spring", "startrek", "starwars", "starwars1",
        "steelers", "summer", "summer1", "sunday", "sunset", "sunshine", "sunshine1", "superman",
        "superman1", "system", "taylor", "temp", "temp123", "tennis", "tequila", "test",
        "test123", "testing", "thomas", "thomas1", "thunder", "tiger", "tigger", "toor",
        "toyota", "trinity", "trustme", "trustno1", "tweety", "twitter", "ubuntu", "unicorn",
        "user", "user123", "vacation", "viking", "vodka", "volleyball", "warrior", "weekend",
        "welcome", "welcome1", "whatever", "whiskey", "william", "windows", "winter", "wizard",
        "yahoo", "yamaha", "yankees", "yankees1", "youtube", "zaq12wsx", "zaq1xsw2", "zelda",
        "zxc123", "zxcvbn", "zxcvbnm", "zxcvbnm1", "zxcvbnm123",
    ]
}
